package io.hbmledger.verdict;

import static io.hbmledger.ledger.Units.MIB;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.weights.KvCacheEstimate;
import io.hbmledger.weights.WeightsPlanner;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.smi.IdleSample;
import io.hbmledger.ledger.vllm.ServerStartsInLog;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Gathers the facts the findings need from a run's evidence set and its ledger: one
 * {@link ServerFacts} per server instance (each vLLM log, or each rank of a deployment whose
 * figures are per rank) and one {@link DeviceFacts} per ledger device. No I/O.
 */
public final class RunFactsBuilder {

    /** vLLM quantity (evidence-v1) -> fact. A later line of the same quantity refines an earlier one. */
    private static final Map<Quantity, Fact> VLLM = Map.ofEntries(
            Map.entry(Quantity.MEMORY_UTILIZATION, Fact.UTILIZATION),
            Map.entry(Quantity.TOTAL_MEMORY, Fact.TOTAL_SEEN),
            Map.entry(Quantity.FREE_MEMORY_AT_START, Fact.FREE_AT_START),
            Map.entry(Quantity.FREE_MEMORY_AFTER_PROFILE, Fact.FREE_AFTER_PROFILE),
            Map.entry(Quantity.INSTANCE_BUDGET, Fact.REQUESTED),
            Map.entry(Quantity.WEIGHTS, Fact.WEIGHTS),
            Map.entry(Quantity.NON_TORCH, Fact.NON_TORCH),
            Map.entry(Quantity.ACTIVATION_PEAK, Fact.ACTIVATION_PEAK),
            Map.entry(Quantity.KV_CACHE_AVAILABLE, Fact.KV_CACHE),
            Map.entry(Quantity.AVAILABLE_MEMORY, Fact.DEVICE_WIDE_KV_BUDGET),
            Map.entry(Quantity.GPU_BLOCKS, Fact.GPU_BLOCKS),
            Map.entry(Quantity.CPU_BLOCKS, Fact.CPU_BLOCKS),
            Map.entry(Quantity.KV_CACHE_TOKENS, Fact.KV_TOKENS),
            Map.entry(Quantity.MAX_CONCURRENCY, Fact.MAX_CONCURRENCY),
            Map.entry(Quantity.GRAPH_MEMORY, Fact.GRAPH_POOL),
            Map.entry(Quantity.OOM_TRIED, Fact.OOM_TRIED),
            Map.entry(Quantity.OOM_FREE, Fact.OOM_FREE),
            Map.entry(Quantity.OOM_TOTAL_CAPACITY, Fact.OOM_TOTAL),
            Map.entry(Quantity.OOM_ALLOCATED, Fact.OOM_ALLOCATED),
            Map.entry(Quantity.OOM_RESERVED, Fact.OOM_RESERVED),
            Map.entry(Quantity.OOM_RESERVED_UNALLOCATED, Fact.OOM_RESERVED_UNALLOCATED),
            Map.entry(Quantity.OOM_THIS_PROCESS, Fact.OOM_THIS_PROCESS),
            Map.entry(Quantity.KV_CACHE_NEEDED, Fact.KV_NEEDED),
            Map.entry(Quantity.MAX_MODEL_LEN, Fact.MAX_MODEL_LEN),
            Map.entry(Quantity.ESTIMATED_MAX_MODEL_LEN, Fact.ESTIMATED_MAX_MODEL_LEN),
            Map.entry(Quantity.TENSOR_PARALLEL_SIZE, Fact.TENSOR_PARALLEL));

    /**
     * memory_failure phases of a refused or aborted start (the failed profiling check is read by
     * {@link ProfilingCheckRule} from its figures); every other phase is an out-of-memory error's.
     */
    private static final java.util.Set<String> REFUSAL_PHASES = java.util.Set.of("startup_check", "kv_cache_sizing",
            "profiling_check");

    private RunFactsBuilder() {
    }

    /**
     * @param peerUtilizations utilizations of all instances sharing the devices, in start
     *     order, as the user gives them; those of the instances whose logs the run holds are
     *     taken out once each, the rest are the peers
     */
    public static RunFacts build(EvidenceSet ev, Ledger ledger, List<Figure> peerUtilizations) {
        RunFacts.Accelerator acc = accelerator(ev);
        List<ServerFacts> servers = withoutEchoes(servers(ev, ledger));
        // --utilizations wins; else the settings a person states in a paste's prose
        List<Figure> peers = new ArrayList<>(peerUtilizations.isEmpty() ? stated(ev) : peerUtilizations);
        for (ServerFacts s : servers) {
            if (s.has(Fact.UTILIZATION) && (s.rank() == null || s.rank() == 0)) {
                double own = s.fact(Fact.UTILIZATION).value();
                peers.stream().filter(p -> Math.abs(p.value() - own) < 1e-9).findFirst().ifPresent(peers::remove);
            }
        }
        return new RunFacts(servers, devices(ev, ledger, acc), peers, acc, ev.serverPids().stream().sorted().toList(),
                otherServices(ev), containers(ev), allocatorSettings(ev));
    }

    /** Each allocator variable the evidence shows set, the last line of each (a later export overrides an earlier one). */
    private static List<RunFacts.AllocatorSetting> allocatorSettings(EvidenceSet ev) {
        Map<String, RunFacts.AllocatorSetting> out = new LinkedHashMap<>();
        for (TaggedObservation t : ev.quantity(Quantity.EXPANDABLE_SEGMENTS)) {
            String variable = t.o().context().component();
            out.put(variable, new RunFacts.AllocatorSetting(variable, t.o().text(), t.o().value() == 1, t.source()));
        }
        return List.copyOf(out.values());
    }

    /**
     * The serving programs other than vLLM the evidence names (prose), each once, in the order
     * named, each with the line that says rolling it back was the fix, when one does.
     */
    private static List<RunFacts.OtherService> otherServices(EvidenceSet ev) {
        Map<String, io.hbmledger.ledger.Source> rollbacks = new HashMap<>();
        ev.quantity(Quantity.ROLLBACK_FIX).forEach(t -> rollbacks.putIfAbsent(t.o().context().component(), t.source()));
        Map<String, RunFacts.OtherService> out = new LinkedHashMap<>();
        for (TaggedObservation t : ev.quantity(Quantity.OTHER_SERVICE)) {
            String program = t.o().context().component();
            out.putIfAbsent(program, new RunFacts.OtherService(program, io.hbmledger.evidence.ServingPrograms.shortName(program),
                    t.source(), rollbacks.get(program)));
        }
        return List.copyOf(out.values());
    }

    /** The containers the evidence's start commands give cards to: one per file and program, cards in the order written. */
    private static List<RunFacts.Container> containers(EvidenceSet ev) {
        Map<String, List<TaggedObservation>> byCommand = new LinkedHashMap<>();
        for (TaggedObservation t : ev.quantity(Quantity.CONTAINER_DEVICE)) {
            byCommand.computeIfAbsent(t.file() + "\u0000" + t.o().context().component(), k -> new ArrayList<>()).add(t);
        }
        List<RunFacts.Container> out = new ArrayList<>();
        byCommand.values().forEach(flags -> out.add(new RunFacts.Container(flags.get(0).o().context().component(),
                flags.stream().map(t -> (int) Math.round(t.o().value())).distinct().toList(),
                flags.stream().map(TaggedObservation::source).toList())));
        return out;
    }

    /**
     * The settings a person states in prose, from the first file that states any: several
     * files (an issue body and a comment) repeat the same instances, they do not add more.
     */
    private static List<Figure> stated(EvidenceSet ev) {
        List<Figure> out = new ArrayList<>();
        String from = null;
        for (TaggedObservation t : ev.observations()) {
            if (t.format() == EvidenceFormat.USER_STATEMENT && t.quantity() == Quantity.MEMORY_UTILIZATION
                    && (from == null || from.equals(t.file()))) {
                from = t.file();
                out.add(Figure.value("utilization", t.o().value(), Confidence.INFERRED,
                        "as the user states it in prose", List.of(t.source())));
            }
        }
        return out;
    }

    /**
     * A log that only repeats another's figures (an issue body quoting the startup log's lines)
     * is not a second server.
     */
    private static List<ServerFacts> withoutEchoes(List<ServerFacts> servers) {
        List<ServerFacts> out = new ArrayList<>();
        for (ServerFacts s : servers) {
            boolean echo = servers.stream().anyMatch(o -> o != s && o.facts().size() > s.facts().size()
                    && s.facts().entrySet().stream().allMatch(e -> o.has(e.getKey()) && sameNumber(o.fact(e.getKey()), e.getValue())));
            if (!echo) {
                out.add(s);
            }
        }
        return out;
    }

    private static boolean sameNumber(Figure a, Figure b) {
        return a.bytes() != null ? b.bytes() != null && Math.abs(a.bytes() - b.bytes()) <= (5L << 20)
                : b.value() != null && Math.abs(a.value() - b.value()) < 1e-9;
    }

    private static List<ServerFacts> servers(EvidenceSet ev, Ledger ledger) {
        Map<String, List<TaggedObservation>> byInstance = new LinkedHashMap<>();
        Map<String, String> names = new HashMap<>();
        Map<String, List<Integer>> serversByLog = new HashMap<>();
        ev.vllmServers().byLog().forEach((file, obs) -> {
            List<Integer> starts = ev.vllmServers().servers(file);
            if (!starts.isEmpty()) {
                serversByLog.put(file, starts);
                Map<Integer, String> labels = ServerStartsInLog.labelsOf(obs, starts);
                starts.forEach(line -> names.put(file + "\u0000" + line, shortName(file) + " (" + labels.get(line) + ")"));
            }
        });
        for (TaggedObservation t : ev.observations()) {
            if (t.isVllm()) {
                // a log with several servers (starts of different models): each is its own instance
                List<Integer> starts = serversByLog.get(t.file());
                String server = starts == null ? "" : String.valueOf(starts.get(ServerStartsInLog.startIndex(starts, t.o().line())));
                String key = t.rank() == null ? t.file() + "\u0000" + server : "deployment\u0000" + t.rank();
                byInstance.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
            }
        }
        boolean ranked = byInstance.keySet().stream().anyMatch(k -> k.startsWith("deployment\u0000"));
        // per-rank log files (run.json evidence[].rank): the ranks are one deployment across files
        boolean ranksFromFiles = ev.observations().stream().filter(t -> t.isVllm() && t.rank() != null)
                .map(TaggedObservation::file).distinct().count() > 1;
        List<TaggedObservation> shared = new ArrayList<>();
        if (ranked) {
            // lines without a rank (the engine's budget, its args) serve every rank's figures
            for (var it = byInstance.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (!e.getKey().startsWith("deployment\u0000")) {
                    shared.addAll(e.getValue());
                    it.remove();
                }
            }
        }
        List<ServerFacts> out = new ArrayList<>();
        for (Map.Entry<String, List<TaggedObservation>> e : byInstance.entrySet()) {
            List<TaggedObservation> obs = new ArrayList<>(shared);
            obs.addAll(e.getValue());
            Integer rank = e.getValue().get(0).rank();
            String instance = rank == null || !ranksFromFiles
                    ? names.getOrDefault(e.getKey(), shortName(e.getValue().get(0).file()))
                    : "ranks of the deployment";
            ServerFacts s = withCheckpointKv(server(instance, rank, obs, devicesOf(rank, ledger)), ev);
            Double declared = ev.layout() == null ? null : ev.layout().utilization();
            if (!s.has(Fact.UTILIZATION) && declared != null) {
                // run.json states the setting; the engine's own line wins when printed
                Map<Fact, Figure> facts = new EnumMap<>(Fact.class);
                facts.putAll(s.facts());
                facts.put(Fact.UTILIZATION, Figure.value("utilization", declared, Confidence.REPORTED, null,
                        List.of(new io.hbmledger.ledger.Source("run.json", 1, "gpu_memory_utilization " + declared))));
                s = new ServerFacts(s.instance(), s.engine(), s.rank(), s.devices(), facts, s.refusal(), s.kvRefusal(), s.oom());
            }
            out.add(s);
        }
        return out;
    }

    private static ServerFacts server(String instance, Integer rank, List<TaggedObservation> obs, List<String> devices) {
        Map<Fact, Figure> facts = new EnumMap<>(Fact.class);
        io.hbmledger.ledger.Source refusal = null;
        io.hbmledger.ledger.Source kvRefusal = null;
        io.hbmledger.ledger.Source oom = null;
        String oomPhase = "unknown";
        String oomDevice = null;
        List<Figure> oomProcesses = new ArrayList<>();
        ServerFacts.Engine engine = ServerFacts.Engine.UNKNOWN;
        boolean engineKv = obs.stream().anyMatch(t -> t.quantity() == Quantity.KV_CACHE_AVAILABLE);
        // lines of the user's own start command: what is set there was asked, not reported by vLLM
        Set<String> userLines = ServerStartsInLog.userLines(obs);
        for (TaggedObservation t : obs) {
            String phase = t.o().context().component();
            if (t.quantity() == Quantity.MEMORY_FAILURE && phase != null && !REFUSAL_PHASES.contains(phase)) {
                oomPhase = phase;
            }
            if (t.quantity() == Quantity.OOM_TRIED) {
                // a later OOM of the same instance starts its own process list
                oomProcesses.clear();
                oomDevice = t.o().context().device();
            }
            if (t.quantity() == Quantity.OOM_PROCESS_IN_USE && t.o().isBytes()) {
                oomProcesses.add(Figure.bytes("pid " + t.o().context().pid(), t.o().bytes(), Confidence.REPORTED, null,
                        List.of(t.source())));
            }
            if (t.quantity() == Quantity.MEMORY_FAILURE && "startup_check".equals(t.o().context().component())) {
                refusal = t.source();
                engine = ServerFacts.Engine.V1;
            }
            if (t.quantity() == Quantity.MEMORY_FAILURE && "kv_cache_sizing".equals(t.o().context().component())) {
                kvRefusal = t.source();
            }
            if (t.quantity() == Quantity.ENGINE_VERSION && t.o().value() != null) {
                engine = t.o().value() == 0 ? ServerFacts.Engine.V0 : ServerFacts.Engine.V1;
            }
            Fact f = VLLM.get(t.quantity());
            if (t.quantity() == Quantity.AVAILABLE_MEMORY && t.o().isBytes() && !engineKv) {
                // vllm-ascend's "Available memory: N" is its KV cache budget (worker_v1.py
                // determine_available_memory: max(total x utilization - peak, 0)), and stays the
                // device-wide budget fact too (DeviceWideBudget); the engine's own "Available KV
                // cache memory" wins where both are printed, as in the ledger
                facts.put(Fact.KV_CACHE, figure(t));
            }
            if (f == null) {
                continue;
            }
            boolean userLine = userLines.contains(t.file() + ":" + t.o().line());
            if (userLine && facts.containsKey(f) && facts.get(f).confidence() == Confidence.REPORTED) {
                // a start command pasted after the log ("started with: vllm serve ...") does not
                // replace what vLLM printed: vLLM's figure is the one it ran with (AskedUtilizationRule)
                continue;
            }
            facts.put(f, userLine ? asked(t) : figure(t));
            if (f == Fact.MAX_CONCURRENCY && t.o().context().tokensPerRequest() != null) {
                facts.put(Fact.MAX_MODEL_LEN, Figure.value("max_model_len", t.o().context().tokensPerRequest(),
                        Confidence.REPORTED, null, List.of(new io.hbmledger.ledger.Source(t.file(), t.o().line(),
                                String.valueOf(t.o().context().tokensPerRequest())))));
            }
            if (f == Fact.OOM_TRIED) {
                oom = t.source();
            }
            if (f == Fact.CPU_BLOCKS && engine == ServerFacts.Engine.UNKNOWN) {
                // V1 has no CPU swap blocks
                engine = ServerFacts.Engine.V0;
            }
            if (f == Fact.KV_TOKENS && engine == ServerFacts.Engine.UNKNOWN) {
                engine = ServerFacts.Engine.V1;
            }
        }
        return new ServerFacts(instance, engine, rank, devices, facts, refusal, kvRefusal,
                oom == null ? null : new ServerFacts.Oom(oom, oomPhase, oomDevice, oomProcesses));
    }

    /**
     * KV bytes per token of this rank from the checkpoint's config.json (an estimate by the
     * architecture's formula), when vLLM's own figures give none.
     */
    private static ServerFacts withCheckpointKv(ServerFacts s, EvidenceSet ev) {
        CheckpointEvidence c = ev.checkpoint();
        if (s.has(Fact.KV_BYTES_PER_TOKEN) || c == null || c.checkpoint().config() == null) {
            return s;
        }
        KvCacheEstimate kv = WeightsPlanner.plan(c.checkpoint(), c.layout(), c.options()).kv();
        if (kv == null || kv.bytesPerTokenPerDevice() <= 0) {
            return s;
        }
        Map<Fact, Figure> facts = new EnumMap<>(Fact.class);
        facts.putAll(s.facts());
        facts.put(Fact.KV_BYTES_PER_TOKEN, Figure.bytes("kv_bytes_per_token", kv.bytesPerTokenPerDevice(),
                Confidence.ESTIMATED, kv.formula() + " (config.json)", c.sources()));
        return new ServerFacts(s.instance(), s.engine(), s.rank(), s.devices(), facts, s.refusal(), s.kvRefusal(), s.oom());
    }

    private static String shortName(String file) {
        int slash = file.lastIndexOf('/');
        return slash < 0 ? file : file.substring(slash + 1);
    }

    /**
     * A setting of the user's start command (--gpu-memory-utilization 0.9, --max-model-len, -tp):
     * the user states it, vLLM did not print it, so it is {@code inferred} as a setting the user
     * states in prose is; the engine's own echo of it (non-default args, engine config) is reported.
     */
    private static Figure asked(TaggedObservation t) {
        List<io.hbmledger.ledger.Source> src = List.of(t.source());
        String why = "as the user's start command sets it; vLLM did not print it";
        return t.o().isBytes()
                ? Figure.bytes(t.quantity().contractName(), t.o().bytes(), Confidence.INFERRED, why, src)
                : Figure.value(t.quantity().contractName(), t.o().value(), Confidence.INFERRED, why, src);
    }

    private static Figure figure(TaggedObservation t) {
        List<io.hbmledger.ledger.Source> src = List.of(t.source());
        return t.o().isBytes()
                ? Figure.bytes(t.quantity().contractName(), t.o().bytes(), Confidence.REPORTED, null, src)
                : Figure.value(t.quantity().contractName(), t.o().value(), Confidence.REPORTED, null, src);
    }

    private static List<String> devicesOf(Integer rank, Ledger ledger) {
        List<String> out = new ArrayList<>();
        for (DeviceLedger d : ledger.devices()) {
            if (rank == null ? ledger.devices().size() == 1 : d.ranks().contains(rank)) {
                out.add(d.device());
            }
        }
        return out;
    }

    private static List<DeviceFacts> devices(EvidenceSet ev, Ledger ledger, RunFacts.Accelerator acc) {
        Set<Long> serverPids = Set.copyOf(ev.serverPids());
        List<DeviceFacts> out = new ArrayList<>();
        for (DeviceLedger d : ledger.devices()) {
            Figure cap = amount("capacity", d.capacity());
            Figure used = amount("used", d.used());
            List<DeviceFacts.ProcessFacts> procs = new ArrayList<>();
            for (TaggedObservation t : usedSample(ev, d)) {
                if (t.quantity() == Quantity.PROCESS_MEMORY && d.device().equals(t.o().context().device())
                        && t.o().context().pid() != null) {
                    procs.add(new DeviceFacts.ProcessFacts(t.o().context().pid(), t.o().context().processName(),
                            Figure.bytes("process", t.o().bytes(), Confidence.MEASURED, null, List.of(t.source())),
                            serverPids.contains(t.o().context().pid())));
                }
            }
            if (procs.isEmpty() && d.deviceId() != null && usedFile(ev, d).map(f -> !ev.smiListsProcesses(f)).orElse(true)) {
                procs.addAll(idleProcesses(ev, d.deviceId(), serverPids));
            }
            String model = modelByCapacity(acc, cap);
            out.add(new DeviceFacts(d.device(), model, cap, used, procs, true, sampleOf(ev, d)));
        }
        if (ev.layout() == null || !ev.layout().devicesGiven()) {
            // the devices were assumed: every card the sample shows may be the one the user asks about
            out.addAll(sampledOnly(ev, ledger, acc));
        }
        return out;
    }

    /**
     * The processes an idle sample listed before the server started, when no sample at the
     * ledger's moment lists processes: the ledger counts them as other processes' memory
     * (ProcessTableRule), and the findings name them.
     */
    private static List<DeviceFacts.ProcessFacts> idleProcesses(EvidenceSet ev, int deviceId, Set<Long> serverPids) {
        List<DeviceFacts.ProcessFacts> out = new ArrayList<>();
        for (TaggedObservation t : IdleSample.of(ev, deviceId).map(IdleSample::processes).orElse(List.of())) {
            Long pid = t.o().context().pid();
            if (pid != null && !serverPids.contains(pid)) {
                out.add(new DeviceFacts.ProcessFacts(pid, t.o().context().processName(), Figure.bytes("process", t.o().bytes(),
                        Confidence.MEASURED, null, List.of(t.source())),
                        false, true));
            }
        }
        return out;
    }

    private static final Set<Quantity> USED = Set.of(Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED);
    private static final Set<Quantity> TOTAL = Set.of(Quantity.HBM_TOTAL, Quantity.MEMORY_TOTAL, Quantity.FB_TOTAL);

    /**
     * Devices a sample shows beside the deployment's (the rest of the card set, another tenant's
     * cards): their headroom is part of the answer too. A later row of the same device refines
     * an earlier one, as a later sample is closer to what the user sees now.
     */
    private static List<DeviceFacts> sampledOnly(EvidenceSet ev, Ledger ledger, RunFacts.Accelerator acc) {
        Set<String> inLedger = new HashSet<>();
        ledger.devices().forEach(d -> inLedger.add(d.device()));
        Map<String, Figure[]> seen = new LinkedHashMap<>();
        Map<String, io.hbmledger.run.Moment> moments = new HashMap<>();
        for (TaggedObservation t : ev.observations()) {
            String device = t.o().context().device();
            // an idle baseline says nothing of the headroom the user asks about
            if (!t.isSmi() || device == null || inLedger.contains(device) || !t.o().isBytes()
                    || t.moment() == io.hbmledger.run.Moment.BASELINE) {
                continue;
            }
            int slot = USED.contains(t.quantity()) ? 0 : TOTAL.contains(t.quantity()) ? 1 : -1;
            if (slot >= 0) {
                seen.computeIfAbsent(device, k -> new Figure[2])[slot] = Figure.bytes(slot == 0 ? "used" : "capacity",
                        t.o().bytes(), Confidence.MEASURED, null, List.of(t.source()));
                if (slot == 0) {
                    moments.put(device, t.moment());
                }
            }
        }
        List<DeviceFacts> out = new ArrayList<>();
        seen.forEach((device, f) -> out.add(new DeviceFacts(device, modelByCapacity(acc, f[1]), f[1], f[0], List.of(),
                false, f[0] == null ? null : new DeviceFacts.Sample(moments.get(device)))));
        return out;
    }

    /**
     * The npu-smi readers do not pass the chip name on, so the model is told by capacity: of the
     * chips vllm-ascend runs on (910B, A3, 310P), only the 910B4 has 32 GiB of HBM. The
     * first-generation Ascend 910 has 32 GiB too but is not a vllm-ascend target.
     */
    private static String modelByCapacity(RunFacts.Accelerator acc, Figure capacity) {
        return acc == RunFacts.Accelerator.NPU && capacity != null && capacity.known()
                && capacity.bytes() == 32768 * MIB ? "910B4" : null;
    }

    /** The ledger's reading of the accelerator ({@link Accelerator#of}), in the findings' words. */
    private static RunFacts.Accelerator accelerator(EvidenceSet ev) {
        return switch (Accelerator.of(ev)) {
            case GPU -> RunFacts.Accelerator.GPU;
            case ASCEND -> RunFacts.Accelerator.NPU;
            case UNKNOWN -> RunFacts.Accelerator.UNKNOWN;
        };
    }

    /**
     * The device sample the ledger's used figure was read from, with its own moment: a sample
     * without a stated moment stands in at the ledger's moment, and the findings must not take
     * it for one taken then.
     */
    private static DeviceFacts.Sample sampleOf(EvidenceSet ev, DeviceLedger d) {
        return usedFile(ev, d).map(f -> new DeviceFacts.Sample(f.moment())).orElse(null);
    }

    /**
     * The device-sample file the ledger's used figure was read from, at the ledger's moment when
     * the file is listed at several (a paste with an idle table and one after the start).
     */
    private static Optional<EvidenceSet.FileInfo> usedFile(EvidenceSet ev, DeviceLedger d) {
        if (d.used() == null || !d.used().known() || d.used().source() == null) {
            return Optional.empty();
        }
        String file = d.used().source().file();
        List<EvidenceSet.FileInfo> named = ev.files().stream().filter(f -> f.file().equals(file) && f.format().isDeviceSample()).toList();
        return named.stream().filter(f -> f.moment() != null && f.moment().jsonName().equals(d.moment())).findFirst()
                .or(() -> named.stream().findFirst());
    }

    /** Observations of the sample the ledger's used figure came from, not of other moments. */
    private static List<TaggedObservation> usedSample(EvidenceSet ev, DeviceLedger d) {
        return usedFile(ev, d).map(ev::smiOf).orElse(List.of());
    }

    private static Figure amount(String name, DeviceLedger.Amount a) {
        if (a == null || !a.known()) {
            return null;
        }
        return new Figure(name, a.bytes(), null, a.confidence(), a.arithmetic(),
                a.source() == null ? List.of() : List.of(a.source()));
    }
}
