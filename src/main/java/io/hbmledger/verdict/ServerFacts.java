package io.hbmledger.verdict;

import io.hbmledger.ledger.Source;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the evidence says about one vLLM server instance (one start of one engine, on its
 * devices): the figures of its memory budget, and whether it was refused or ran out of memory.
 *
 * @param instance how the report names the instance (its log file, or "instance N")
 * @param engine which budget arithmetic applies
 * @param rank the worker rank the figures are for, or null for the whole instance
 * @param devices the ledger names of its devices, empty when unknown
 * @param facts the figures the evidence gives; a missing key means no evidence
 * @param refusal the line of the start check that refused the start, or null
 * @param kvRefusal the line where the engine refused for lack of KV cache memory (after
 *     profiling: "No available memory for the cache blocks", "... KV cache is needed ..."), or null
 * @param oom the out-of-memory error, or null
 */
public record ServerFacts(String instance, Engine engine, Integer rank, List<String> devices,
                          Map<Fact, Figure> facts, Source refusal, Source kvRefusal, Oom oom) {

    public ServerFacts {
        devices = List.copyOf(devices);
        facts = facts.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(facts));
    }

    public Optional<Figure> get(Fact f) {
        return Optional.ofNullable(facts.get(f));
    }

    public boolean has(Fact... all) {
        for (Fact f : all) {
            if (!facts.containsKey(f)) {
                return false;
            }
        }
        return true;
    }

    public Figure fact(Fact f) {
        Figure v = facts.get(f);
        if (v == null) {
            throw new IllegalStateException("no " + f + " for " + instance);
        }
        return v;
    }

    /**
     * An out-of-memory error of the instance.
     *
     * @param at the error's line
     * @param phase when it struck ({@code memory_failure}'s component: {@code model_loading},
     *     {@code memory_profiling}, {@code kv_cache_allocation}, {@code graph_capture},
     *     {@code serving}, {@code after_kv_cache_sizing} or {@code unknown})
     * @param device the device the message names ({@code npu:15}, the process-local index), or null
     * @param processes "Process N has X memory in use" figures, named {@code pid N}, in the message's order
     */
    public record Oom(Source at, String phase, String device, List<Figure> processes) {

        public Oom {
            processes = List.copyOf(processes);
        }
    }

    /** The budget arithmetic that applies, by engine generation (docs/vllm-budget.md). */
    public enum Engine {
        /** vLLM V0: KV = utilization x total - (weights + non-torch + activation peak). */
        V0,
        /** vLLM V1 (and vllm-ascend's V1 worker): free at start must reach utilization x total. */
        V1,
        UNKNOWN
    }
}
