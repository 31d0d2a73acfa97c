package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;

import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An out-of-memory error (torch's "CUDA out of memory", torch_npu's "NPU out of memory"): what
 * the allocation asked, what was free of the total at that instant, how much PyTorch's allocator
 * held and how much of that no tensor used, what was outside PyTorch, and in which phase of the
 * start it struck. The phase decides the advice: an OOM in the memory profile is not cured by a
 * lower gpu_memory_utilization, one in graph capture is.
 */
final class OomRule {

    private OomRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (ServerFacts s : run.servers()) {
            if (s.oom() == null || !s.has(Fact.OOM_TRIED)) {
                continue;
            }
            out.add(finding(s, s.oom(), run));
        }
        return out;
    }

    /**
     * True when the rank's one ledger device is another than the device the message names and
     * the message's index is the rank's own (vLLM's workers use device local_rank among the
     * visible ones; a server without ranks uses device 0): the ledger's name is then the same
     * card under its host number. Any other index (a Ray worker's npu:15 beside an assumed
     * device 0) stays as printed.
     */
    private static boolean renumbered(ServerFacts s, String device) {
        if (s.devices().size() != 1) {
            return false;
        }
        String ledger = s.devices().get(0);
        String index = device.substring(device.lastIndexOf(':') + 1);
        return !ledger.equals(device) && !ledger.startsWith(device + "/")
                && index.equals(String.valueOf(s.rank() == null ? 0 : s.rank()));
    }

    private static Finding finding(ServerFacts s, ServerFacts.Oom oom, RunFacts facts) {
        RunFacts.Accelerator run = facts.accelerator();
        Figure tried = s.fact(Fact.OOM_TRIED).named("tried_to_allocate");
        List<Figure> figures = new ArrayList<>(List.of(tried));
        StringBuilder text = new StringBuilder("Out of memory");
        if (oom.device() != null && renumbered(s, oom.device())) {
            // torch numbers the devices the process sees (ASCEND_RT_VISIBLE_DEVICES=2,3: rank 0's "NPU 0"
            // is npu:2): the finding said npu:0 beside a table row npu:2/chip:0 (fresh-user finding)
            text.append(" on ").append(s.devices().get(0)).append(" (").append(s.rank() == null ? "" : "rank " + s.rank() + "; ")
                    .append("the message's ").append(oom.device()).append(", numbered among the devices the process sees)");
        } else if (oom.device() != null) {
            text.append(" on ").append(oom.device()).append(s.rank() == null ? "" : " (rank " + s.rank() + ")");
        } else if (s.rank() != null) {
            text.append(" on rank ").append(s.rank());
        }
        text.append(during(oom.phase())).append(": an allocation of ").append(size(tried)).append(" failed");
        Figure free = s.get(Fact.OOM_FREE).map(f -> f.named("free")).orElse(null);
        Figure total = s.get(Fact.OOM_TOTAL).map(f -> f.named("total_capacity")).orElse(null);
        if (free != null) {
            figures.add(free);
            text.append(" with ").append(size(free)).append(" free");
        }
        if (total != null) {
            figures.add(total);
            text.append(" of ").append(gib(total));
        }
        text.append('.');
        Figure cached = cachedUnused(s);
        Figure reserved = reserved(s, cached);
        boolean foreign = false;
        Figure outsideShown = null;
        List<String> lower = new ArrayList<>();
        if (reserved != null) {
            figures.add(reserved);
            text.append(" PyTorch held ").append(gib(reserved));
            if (s.has(Fact.OOM_ALLOCATED)) {
                text.append(" (").append(gib(s.fact(Fact.OOM_ALLOCATED))).append(" in tensors");
                text.append(cached == null ? ")" : ", " + gib(cached) + " cached but unused)");
                if (cached != null) {
                    figures.add(cached);
                }
            }
            if (free != null && total != null) {
                Figure outside = Figure.bytes("outside_pytorch", total.bytes() - reserved.bytes() - free.bytes(),
                        Figure.derived(total, reserved, free), Units.gibNumber(total.bytes()) + " - "
                                + Units.gibNumber(reserved.bytes()) + " - " + Units.gibNumber(free.bytes()) + " GiB",
                        Figure.sourcesOf(total, reserved, free));
                if (outside.bytes() >= 0) {
                    figures.add(outside);
                    text.append("; ").append(gib(outside)).append(" (").append(outside.arithmetic())
                            .append(") was outside PyTorch's allocator: the runtime context")
                            // "..., other processes and any other process" with a process list (fresh-user finding)
                            .append(oom.processes().size() > 1 ? ", communication buffers and the other processes"
                                    : s.has(Fact.OOM_THIS_PROCESS) ? " and communication buffers"
                                    : ", communication buffers and any other process");
                    foreign = OomPlacement.foreign(outside, total, reserved);
                    outsideShown = outside;
                }
            }
            text.append('.');
            if (foreign) {
                text.append(OomPlacement.foreignText(outsideShown, total));
            }
            Optional<Figure> budget = OomPlacement.budget(s, total);
            if (budget.isPresent() && reserved.bytes() > budget.get().bytes()) {
                Figure over = Arith.minus("over_budget", reserved, budget.get());
                figures.add(budget.get());
                figures.add(over);
                text.append(OomPlacement.overBudgetText(budget.get(), over, total, s));
                if (utilizationHelps(oom.phase())) {
                    OomPlacement.lowerUtilization(s, tried, free, total, figures).ifPresent(lower::add);
                }
            }
        }
        processes(s, oom, text, figures);
        List<String> advice = new ArrayList<>();
        if (foreign) {
            advice.add(OomPlacement.foreignAdvice(run, oom.device()));
        }
        advice.addAll(lower);
        if (cached != null && free != null) {
            Figure reachable = Arith.sum("free_plus_cached", free, cached);
            figures.add(reachable);
            if (reachable.bytes() >= tried.bytes()) {
                text.append(" With the cache released ").append(size(reachable)).append(" would have been free, enough:")
                        .append(" the allocator's cache was fragmented.");
                advice.add(expandable(allocConf(s), facts));
            } else {
                text.append(" Even with the cache released only ").append(gib(reachable)).append(" (")
                        .append(reachable.arithmetic()).append(") would have been free, less than ")
                        .append(gib(tried)).append(": not fragmentation, the request itself does not fit.");
            }
        }
        // the phase's advice, unless a sharper one above already says it: another process holds
        // the device, or (phase unknown) the utilization worked out from the figures
        if (!foreign && (lower.isEmpty() || !advice(oom.phase()).equals(advice("")))) {
            advice.addAll(advice(oom.phase()));
        }
        return new Finding(Finding.Kind.OOM, Finding.Severity.ERROR, s.devices(), s.instance(), text.toString(),
                figures, advice);
    }

    /** Small sizes as the user's log wrote them (88.00 MiB), not rounded to 0.09 GiB. */
    private static String size(Figure f) {
        return Units.gibOrMib(f.bytes());
    }

    /** Before the KV cache is sized a lower share changes nothing (vLLM's profile comes first). */
    private static boolean utilizationHelps(String phase) {
        return !"model_loading".equals(phase) && !"memory_profiling".equals(phase);
    }

    /** Cached but unused: as torch 2.1+ prints it, else reserved - allocated (older torch, torch_npu). */
    private static Figure cachedUnused(ServerFacts s) {
        if (s.has(Fact.OOM_RESERVED_UNALLOCATED)) {
            return s.fact(Fact.OOM_RESERVED_UNALLOCATED).named("reserved_unallocated");
        }
        if (s.has(Fact.OOM_RESERVED, Fact.OOM_ALLOCATED)) {
            Figure c = Arith.minus("reserved_unallocated", s.fact(Fact.OOM_RESERVED), s.fact(Fact.OOM_ALLOCATED));
            return c.bytes() >= 0 ? c : null;
        }
        return null;
    }

    /** Reserved as printed (older torch, torch_npu), else allocated + unallocated (torch 2.1+). */
    private static Figure reserved(ServerFacts s, Figure cached) {
        if (s.has(Fact.OOM_RESERVED)) {
            return s.fact(Fact.OOM_RESERVED).named("reserved");
        }
        if (s.has(Fact.OOM_ALLOCATED) && cached != null) {
            return Arith.sum("reserved", s.fact(Fact.OOM_ALLOCATED), cached);
        }
        return null;
    }

    private static void processes(ServerFacts s, ServerFacts.Oom oom, StringBuilder text, List<Figure> figures) {
        List<Figure> listed = oom.processes();
        if (s.has(Fact.OOM_THIS_PROCESS)) {
            Figure self = s.fact(Fact.OOM_THIS_PROCESS).named("this_process");
            figures.add(self);
            text.append(" The failing process used ").append(gib(self)).append(" in all");
            if (!listed.isEmpty()) {
                Figure others = Arith.sum("other_processes", listed.toArray(Figure[]::new));
                figures.add(others);
                text.append("; ").append(listed.size() == 1 ? "another process held " : listed.size() + " other processes held ")
                        .append(gib(others)).append(" (").append(names(listed)).append(")");
            }
            text.append('.');
        } else if (listed.size() == 1) {
            figures.add(listed.get(0));
            text.append(" The driver lists one process on the device, ").append(listed.get(0).name()).append(" with ")
                    .append(gib(listed.get(0))).append(": the failing process itself (in a container the driver shows the host's pid).");
        } else if (listed.size() > 1) {
            figures.addAll(listed);
            text.append(" The driver lists ").append(listed.size()).append(" processes on the device: ")
                    .append(names(listed)).append("; all but the failing one (the message does not say which) are other tenants.");
        }
    }

    private static String names(List<Figure> processes) {
        List<String> out = new ArrayList<>();
        for (Figure p : processes) {
            out.add(p.name() + " " + Units.gibNumber(p.bytes()) + " GiB");
        }
        return String.join(", ", out);
    }

    /**
     * Expandable segments, unless the evidence shows them already on (collect_env's environment, a
     * start script's export): then that is said, with where, and the advice is headroom instead.
     */
    private static String expandable(String variable, RunFacts facts) {
        Optional<RunFacts.AllocatorSetting> set = facts.allocator(variable);
        if (set.isPresent() && set.get().expandable()) {
            return variable + "=" + set.get().value() + " is already set (" + set.get().source().shortForm() + "), and the"
                    + " cached blocks still could not serve the request: leave more headroom instead, with a lower"
                    + " gpu_memory_utilization or smaller max_num_seqs / max_num_batched_tokens.";
        }
        return "Set " + variable + "=expandable_segments:True so that the allocator's cached blocks can serve a larger request"
                + set.map(a -> " (it is " + a.value() + " at " + a.source().shortForm() + ")").orElse("") + ".";
    }

    private static String allocConf(ServerFacts s) {
        return s.oom().device() != null && s.oom().device().startsWith("npu") ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
    }

    private static String during(String phase) {
        return switch (phase) {
            case "model_loading" -> " while loading the weights";
            case "memory_profiling" -> " during vLLM's memory profiling (a forward pass over a dummy batch of"
                    + " max_num_batched_tokens tokens, before the KV cache is sized)";
            case "kv_cache_allocation" -> " while allocating the KV cache";
            case "graph_capture" -> " during graph capture, after the KV cache took its budget";
            case "serving" -> " while serving requests";
            case "after_kv_cache_sizing" -> " after the KV cache was sized (allocation, graph capture, warm-up or serving)";
            // the log shows no phase line before the error (an excerpt cut before them): said, not guessed
            default -> " in a phase of the start the log does not show (no loading, weights or KV cache line before"
                    + " the error)";
        };
    }

    private static List<String> advice(String phase) {
        return switch (phase) {
            case "model_loading" -> List.of("The weights of one device do not fit beside what else holds it: shard over"
                    + " more devices (tensor or expert parallelism), use a quantized checkpoint, or free the device of"
                    + " other processes; gpu_memory_utilization does not apply yet at this point.");
            case "memory_profiling" -> List.of("Lower max_num_batched_tokens (and max_model_len / max_num_seqs): they set"
                    + " the size of the profiling batch. gpu_memory_utilization does not help here, the KV cache is"
                    + " not allocated yet. Or give each device fewer weights (more tensor or expert parallelism,"
                    + " quantization).");
            case "kv_cache_allocation" -> List.of("Lower gpu_memory_utilization: the KV cache was sized for more than"
                    + " was free when it was allocated (did another process take memory after profiling?).");
            case "graph_capture" -> List.of("Lower gpu_memory_utilization to leave room for the graph pool, capture"
                    + " fewer batch sizes (cudagraph_capture_sizes), or run with --enforce-eager.");
            case "serving" -> List.of("The activation peak under load outgrew the profiled one, or memory outside"
                    + " vLLM's budget grew: lower max_num_seqs / max_num_batched_tokens, or gpu_memory_utilization.");
            default -> List.of("Lower gpu_memory_utilization if the OOM came from memory outside vLLM's budget"
                    + " (graphs, communication buffers, workspaces), or lower max_num_seqs / max_num_batched_tokens"
                    + " if the activation peak under load outgrew the profiled one. Which applies depends on the phase:"
                    + " the server log from its start to the error (\"Starting to load model\", \"Model loading took\","
                    + " the KV cache lines) tells loading, profiling and the KV cache apart.");
        };
    }
}
