package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.check.LaterSamplesCheck;
import io.hbmledger.load.RankLabels;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The attribution rules over hand-made observations. Each observation copies a line of a real
 * corpus file (named in the comment) as the evidence contract says the parsers report it; the
 * expected values are worked out by hand in the comments. The same ledgers are checked end to
 * end from the real files in ExamplesTest.
 */
class AttributionTest {

    private static final long MIB = 1L << 20;
    private final List<TaggedObservation> obs = new ArrayList<>();
    private final List<EvidenceSet.FileInfo> files = new ArrayList<>();

    private void file(String name, EvidenceFormat format, Moment m) {
        files.add(new EvidenceSet.FileInfo(name, format, m));
    }

    private void add(String file, Observation o) {
        EvidenceSet.FileInfo f = files.stream().filter(x -> x.file().equals(file)).findFirst().orElseThrow();
        obs.add(new TaggedObservation(o, file, f.format(), f.moment(), RankLabels.rankOf(o.context().process(), 1, 1, 1), null));
    }

    private static Entry entry(DeviceLedger d, String component) {
        return d.entries().stream().filter(e -> e.component().equals(component)).findFirst().orElseThrow();
    }

    private static Check check(DeviceLedger d, String name) {
        return d.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * vllm-ascend issue 2667: Atlas A3, Llama-3.1-8B + EAGLE3, one rank on device 0; the npu-smi
     * table lists no process, so it is the idle baseline; there is no sample at ready.
     */
    @Test
    void a3SingleRankWithBaselineOnly() {
        EvidenceSet ev = LedgerFixtures.a3();
        Ledger l = Attribution.standard().attribute(ev);
        assertThat(l.devices()).hasSize(1);
        DeviceLedger d = l.devices().get(0);
        assertThat(d.device()).isEqualTo("npu:0/chip:0");
        assertThat(d.ranks()).containsExactly(0);
        assertThat(d.moment()).isEqualTo("ready");
        // capacity 65536 MiB = 68719476736 B, from the baseline sample
        assertThat(d.capacity().bytes()).isEqualTo(68719476736L);
        assertThat(d.used().bytes()).isNull();
        assertThat(d.residualBytes()).isNull();
        // 3412 MiB x 1048576 = 3577741312 B
        Entry base = entry(d, Component.DRIVER_BASELINE);
        assertThat(base.bytes()).isEqualTo(3577741312L);
        assertThat(base.confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(base.sources().get(0).line()).isEqualTo(9);
        assertThat(entry(d, Component.WEIGHTS).bytes()).isEqualTo(16948692569L);
        assertThat(entry(d, Component.WEIGHTS).confidence()).isEqualTo(Confidence.REPORTED);
        assertThat(entry(d, Component.KV_CACHE).bytes()).isEqualTo(34184553369L);
        // floor(0.8 x 65464696832 - 34184553369) = floor(52371757465.6 - 34184553369)
        //   = 18187204096; minus weights 16948692569 = 1238511527
        Entry rest = entry(d, Component.PROFILE_PEAK_REST);
        assertThat(rest.bytes()).isEqualTo(1238511527L);
        assertThat(rest.confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(rest.counted()).isFalse();
        assertThat(rest.arithmetic()).contains("18187204096");
        assertThat(entry(d, Component.GRAPH_POOL).bytes()).isNull();
        assertThat(entry(d, Component.HCCL).confidence()).isEqualTo(Confidence.UNKNOWN);
        assertThat(entry(d, Component.OTHER_PROCESSES).bytes()).isNull();
        // counted: 3577741312 + 16948692569 + 34184553369 = 54710987250
        assertThat(d.countedSum()).isEqualTo(54710987250L);
        assertThat(check(d, Check.LEDGER_SUM_VS_USED).status()).isEqualTo(Check.Status.SKIPPED);
        // 68719476736 - 65464696832 = 3254779904 B = 3.03 GiB
        assertThat(check(d, Check.TOTAL_VS_CAPACITY).detail()).contains("3.03 GiB");
        // floor(0.8 x 65464696832) = 52371757465 B = 48.77499... GiB, printed 48.77 GiB
        assertThat(check(d, Check.VLLM_BUDGET_VS_DEVICE).detail()).contains("= 48.77 GiB");
        assertThat(check(d, Check.MIXED_MOMENTS).status()).isEqualTo(Check.Status.PASS);
        assertThat(l.status()).isEqualTo(Ledger.Status.INCOMPLETE);
        assertThat(l.incompleteReasons()).anyMatch(r -> r.startsWith("no msprof evidence in the run"))
                .anyMatch(r -> r.contains("at ready"));
    }

    /**
     * vllm-ascend issue 264: 16 x 910B2C, DeepSeek-R1 TP16 over Ray; NPU 15 ran out of memory
     * in the profile run; the npu-smi sample was taken with the workers still holding memory.
     */
    @Test
    void oomLedgerOfTheFailedDevice() {
        EvidenceSet ev = LedgerFixtures.oom();
        Ledger l = Attribution.standard().attribute(ev);
        assertThat(l.status()).isEqualTo(Ledger.Status.FAILED);
        assertThat(l.incompleteReasons().get(0)).contains("out of memory on npu:15/chip:0").contains("oom.log:16");
        DeviceLedger d = l.devices().get(15);
        assertThat(d.device()).isEqualTo("npu:15/chip:0");
        assertThat(d.moment()).isEqualTo("oom");
        // 59351 MiB = 62234034176 B
        assertThat(d.used().bytes()).isEqualTo(62234034176L);
        assertThat(entry(d, Component.TORCH_ALLOCATED).bytes()).isEqualTo(57702885622L);
        // 58368605553 - 57702885622 = 665719931
        assertThat(entry(d, Component.ALLOCATOR_CACHE).bytes()).isEqualTo(665719931L);
        // 56063 MiB = 58786316288 B, shown but not counted (the torch figures split it)
        assertThat(entry(d, Component.SERVER_PROCESSES).bytes()).isEqualTo(58786316288L);
        assertThat(entry(d, Component.SERVER_PROCESSES).counted()).isFalse();
        assertThat(entry(d, Component.OTHER_PROCESSES).bytes()).isZero();
        assertThat(entry(d, Component.OTHER_PROCESSES).confidence()).isEqualTo(Confidence.MEASURED);
        // 62234034176 - 58786316288 = 3447717888
        assertThat(entry(d, Component.OUTSIDE_PROCESSES).bytes()).isEqualTo(3447717888L);
        assertThat(entry(d, Component.DRIVER_BASELINE).bytes()).isNull();
        // 62234034176 - (57702885622 + 665719931 + 0 + 3447717888) = 417710735
        assertThat(d.residualBytes()).isEqualTo(417710735L);
        assertThat(check(d, Check.LEDGER_SUM_VS_USED).status()).isEqualTo(Check.Status.PASS);
        // 18790481920 - 6399501271 = 12390980649 B = 11.54 GiB
        assertThat(check(d, Check.OOM).status()).isEqualTo(Check.Status.FAIL);
        assertThat(check(d, Check.OOM).detail()).contains("short by 11.54 GiB");
        // another device: no torch figures, the server's memory is not split; residual 0 by construction
        DeviceLedger d0 = l.devices().get(0);
        assertThat(d0.moment()).isEqualTo("oom");
        assertThat(entry(d0, Component.SERVER_PROCESSES).bytes()).isEqualTo(56057 * MIB);
        assertThat(entry(d0, Component.SERVER_PROCESSES).counted()).isTrue();
        // 59356 MiB - 56057 MiB = 3299 MiB = 3459252224 B
        assertThat(entry(d0, Component.OUTSIDE_PROCESSES).bytes()).isEqualTo(3459252224L);
        assertThat(d0.residualBytes()).isZero();
        assertThat(check(d0, Check.LEDGER_SUM_VS_USED).status()).isEqualTo(Check.Status.SKIPPED);
        assertThat(d0.checks()).noneMatch(c -> c.name().equals(Check.OOM));
        // devices with no npu-smi row at all stay unknown
        assertThat(l.devices().get(3).used().bytes()).isNull();
    }

    /** A ready sample, TP 2 with per-rank lines, and one line that serves all ranks. */
    @Test
    void perRankFiguresAndOneLineForAllRanks() {
        file("base.txt", EvidenceFormat.NPU_SMI_INFO, Moment.BASELINE);
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        // devices 4 and 5 (rank 0 -> 4, rank 1 -> 5), 910B tables without Phy-ID
        for (int dev : new int[] {4, 5}) {
            add("base.txt", Observation.bytes(Quantity.HBM_USED, 3000 * MIB, 10 + dev, "3000").in(Context.device("npu:" + dev + "/chip:0")));
            add("ready.txt", Observation.bytes(Quantity.HBM_USED, 40000 * MIB, 10 + dev, "40000").in(Context.device("npu:" + dev + "/chip:0")));
            add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 10 + dev, "65536").in(Context.device("npu:" + dev + "/chip:0")));
        }
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 36000 * MIB, 40, "36000").in(Context.builder().device("npu:4/chip:0").pid(100L).processName("python3").build()));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 1000 * MIB, 41, "1000").in(Context.builder().device("npu:4/chip:0").pid(200L).processName("other").build()));
        obs.add(new TaggedObservation(Observation.bytes(Quantity.WEIGHTS, 8L << 30, 20, "8.0 GiB").in(Context.worker("Worker_TP0 pid=1")),
                "serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP, 0, null));
        obs.add(new TaggedObservation(Observation.bytes(Quantity.WEIGHTS, 9L << 30, 21, "9.0 GiB").in(Context.worker("Worker_TP1 pid=2")),
                "serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP, 1, null));
        obs.add(new TaggedObservation(Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 20L << 30, 30, "20.00 GiB"),
                "serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP, null, null));

        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(2, 1, List.of(4, 5), List.of(100L), null)));
        DeviceLedger d4 = l.devices().get(0);
        DeviceLedger d5 = l.devices().get(1);
        assertThat(d4.device()).isEqualTo("npu:4/chip:0");
        assertThat(d4.ranks()).containsExactly(0);
        assertThat(entry(d4, Component.WEIGHTS).bytes()).isEqualTo(8L << 30);
        assertThat(entry(d5, Component.WEIGHTS).bytes()).isEqualTo(9L << 30);
        assertThat(entry(d4, Component.WEIGHTS).confidence()).isEqualTo(Confidence.REPORTED);
        assertThat(entry(d4, Component.KV_CACHE).confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(entry(d4, Component.KV_CACHE).note()).contains("serves all 2 ranks");
        // device 4: other process pid 200 = 1000 MiB; outside = 40000 - 36000 - 1000 = 3000 MiB
        assertThat(entry(d4, Component.OTHER_PROCESSES).bytes()).isEqualTo(1000 * MIB);
        assertThat(entry(d4, Component.OUTSIDE_PROCESSES).bytes()).isEqualTo(3000 * MIB);
        assertThat(entry(d4, Component.DRIVER_BASELINE).counted()).isFalse();
        // residual = 40000 MiB - (8 GiB + 20 GiB + 1000 MiB + 3000 MiB) = 40000 - 28672 - 4000 = 7328 MiB
        assertThat(d4.residualBytes()).isEqualTo(7328 * MIB);
        assertThat(check(d4, Check.LEDGER_SUM_VS_USED).status()).isEqualTo(Check.Status.WARN);
        // device 5: the table lists processes elsewhere, none here: 0 other, measured;
        // outside = all 40000 MiB (no process listed), driver baseline not counted
        assertThat(entry(d5, Component.OTHER_PROCESSES).bytes()).isZero();
        assertThat(d5.residualBytes()).isEqualTo(40000 * MIB - (9L << 30) - (20L << 30) - 40000 * MIB);
        assertThat(check(d5, Check.LEDGER_SUM_VS_USED).status()).isEqualTo(Check.Status.FAIL);
        assertThat(d4.checks()).noneMatch(c -> c.name().equals(LaterSamplesCheck.NAME));
    }

    @Test
    void afterSampleIsGrowthNotAPeak() {
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        file("after.txt", EvidenceFormat.NPU_SMI_INFO, Moment.AFTER);
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 40000 * MIB, 9, "40000").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("after.txt", Observation.bytes(Quantity.HBM_USED, 42048 * MIB, 9, "42048").in(Context.device("npu:0/chip:0")));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        Check c = check(l.devices().get(0), LaterSamplesCheck.NAME);
        // 42048 - 40000 = 2048 MiB = 2.00 GiB > 2% of 64 GiB (1.28 GiB)
        assertThat(c.status()).isEqualTo(Check.Status.WARN);
        assertThat(c.detail()).contains("+2.00 GiB since ready").contains("not the activation peak");
        assertThat(l.devices().get(0).used().bytes()).isEqualTo(40000 * MIB);
    }

    @Test
    void negativeResidualIsCalledADoubleCountNotUncoveredMemory() {
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 10240 * MIB, 9, "10240").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("serve.log", Observation.bytes(Quantity.WEIGHTS, 8L << 30, 40, "8.00 GiB"));
        add("serve.log", Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 4L << 30, 41, "4.00 GiB"));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        DeviceLedger d = l.devices().get(0);
        // used 10 GiB - (weights 8 GiB + KV 4 GiB) = -2 GiB = -2147483648 B
        assertThat(d.residualBytes()).isEqualTo(-2147483648L);
        assertThat(d.residualNote()).startsWith("negative:").contains("counted twice").doesNotContain("do not cover");
    }

    @Test
    void kvFromTokensOnlyWhenNothingBetter() {
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        file("config.json", EvidenceFormat.MODEL_CONFIG, Moment.STATIC);
        add("serve.log", Observation.value(Quantity.KV_CACHE_TOKENS, 252800, 48, "252,800"));
        // Llama-3.1-8B: 2 (K,V) x 32 layers x 8 KV heads x 128 dims x 2 bytes = 131072 B/token
        add("config.json", Observation.bytes(Quantity.KV_BYTES_PER_TOKEN, 131072, 1, "131072"));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        Entry kv = entry(l.devices().get(0), Component.KV_CACHE);
        // 252800 x 131072 = 33135001600
        assertThat(kv.bytes()).isEqualTo(33135001600L);
        assertThat(kv.confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(kv.arithmetic()).isEqualTo("252800 tokens x 131072 B/token = 33135001600 B (30.86 GiB)");
        assertThat(l.notes()).isEmpty();
    }

    /** nvidia-smi samples take the same rules: fb_used / fb_total per gpu:<index>. */
    @Test
    void nvidiaSmiSamples() {
        file("smi.txt", EvidenceFormat.NVIDIA_SMI, Moment.READY);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("smi.txt", Observation.bytes(Quantity.FB_USED, 70000 * MIB, 10, "70000MiB").in(Context.device("gpu:1")));
        add("smi.txt", Observation.bytes(Quantity.FB_TOTAL, 81559 * MIB, 10, "81559MiB").in(Context.device("gpu:1")));
        add("smi.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 69000 * MIB, 20, "69000MiB").in(Context.builder().device("gpu:1").pid(7L).processName("python3").build()));
        add("serve.log", Observation.bytes(Quantity.WEIGHTS, 15L << 30, 5, "15.00 GiB"));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(1), List.of(), null)));
        DeviceLedger d = l.devices().get(0);
        assertThat(d.device()).isEqualTo("gpu:1");
        assertThat(d.used().bytes()).isEqualTo(70000 * MIB);
        assertThat(d.capacity().bytes()).isEqualTo(81559 * MIB);
        // outside = 70000 - 69000 = 1000 MiB; no evidence ties pid 7 (python3) to the server, so it is
        // other_processes, kept out of the sum because it may hold the server whose weights are counted
        assertThat(entry(d, Component.OUTSIDE_PROCESSES).bytes()).isEqualTo(1000 * MIB);
        assertThat(d.entries()).noneMatch(e -> e.component().equals(Component.SERVER_PROCESSES));
        assertThat(entry(d, Component.OTHER_PROCESSES).bytes()).isEqualTo(69000 * MIB);
        assertThat(entry(d, Component.OTHER_PROCESSES).counted()).isFalse();
        assertThat(entry(d, Component.OTHER_PROCESSES).note()).contains("pid 7 python3", "no evidence names the server's pids");
        // residual = 70000 MiB - 15 GiB - 0 - 1000 MiB = 69000 MiB - 15360 MiB = 53640 MiB
        assertThat(d.residualBytes()).isEqualTo(53640 * MIB);
    }

    /** A sample whose moment was not stated is used for ready, and the check says so. */
    @Test
    void untaggedSampleWarnsAndForeignRanksAreReported() {
        file("smi.txt", EvidenceFormat.NPU_SMI_INFO, null);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("smi.txt", Observation.bytes(Quantity.HBM_USED, 30000 * MIB, 9, "30000").in(Context.device("npu:0/chip:0")));
        add("smi.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("serve.log", Observation.bytes(Quantity.WEIGHTS, 20L << 30, 3, "20.00 GiB").in(Context.worker("Worker_TP1 pid=2")));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        DeviceLedger d = l.devices().get(0);
        assertThat(d.used().bytes()).isEqualTo(30000 * MIB);
        assertThat(check(d, Check.MIXED_MOMENTS).status()).isEqualTo(Check.Status.WARN);
        assertThat(check(d, Check.MIXED_MOMENTS).detail()).contains("--moment FILE=ready");
        // Worker_TP1 is rank 1, which a TP 1 deployment does not have
        assertThat(entry(d, Component.WEIGHTS).bytes()).isNull();
        assertThat(l.incompleteReasons()).anyMatch(r -> r.contains("rank(s) [1]") && r.contains("check tp"));
    }

    @Test
    void collectionReasonsComeFirstAndKeepTheRunIncomplete() {
        Ledger l = Attribution.standard().attribute(LedgerFixtures.a3())
                .withCollection("incomplete", List.of("collected without msprof (--no-msprof)"));
        assertThat(l.status()).isEqualTo(Ledger.Status.INCOMPLETE);
        assertThat(l.incompleteReasons().get(0)).isEqualTo("collection: collected without msprof (--no-msprof)");
        assertThat(l.incompleteReasons()).anyMatch(r -> r.startsWith("ledger lines without evidence: ")
                && r.contains("graph_pool") && r.contains("hccl"));
        assertThat(Attribution.standard().attribute(LedgerFixtures.a3()).withCollection("failed", List.of()).status())
                .isEqualTo(Ledger.Status.FAILED);
    }

    @Test
    void negativeKvBudgetIsShownNotCounted() {
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("serve.log", Observation.bytes(Quantity.KV_CACHE_AVAILABLE, -(3L << 29), 12, "-1.50 GiB"));
        Entry kv = entry(Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null))).devices().get(0), Component.KV_CACHE);
        assertThat(kv.bytes()).isEqualTo(-(3L << 29));
        assertThat(kv.counted()).isFalse();
        assertThat(kv.note()).contains("no memory left for the KV cache");
    }

    /** Container pids that npu-smi does not show: no row is the server's, whatever its name, and the note says why. */
    @Test
    void serverPidsFromAnotherNamespaceTieNoRow() {
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 40000 * MIB, 9, "40000").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 36000 * MIB, 40, "36000").in(Context.builder().device("npu:0/chip:0").pid(418635L).processName("vllm").build()));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 500 * MIB, 41, "500").in(Context.builder().device("npu:0/chip:0").pid(999L).processName("monitor").build()));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(1440043L), null)));
        DeviceLedger d = l.devices().get(0);
        // 36000 + 500 MiB, both other_processes; no vLLM figure is counted, so the line is in the sum
        assertThat(d.entries()).noneMatch(e -> e.component().equals(Component.SERVER_PROCESSES));
        assertThat(entry(d, Component.OTHER_PROCESSES).bytes()).isEqualTo(36500 * MIB);
        assertThat(entry(d, Component.OTHER_PROCESSES).counted()).isTrue();
        assertThat(entry(d, Component.OTHER_PROCESSES).note()).contains("none of the server's pids ([1440043])");
    }

    /** Issue 10: two instances' logs are never merged silently: the ledger says which figure it took. */
    @Test
    void twoServerLogsAreNamedNotMergedSilently() {
        file("first.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        file("second.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("first.log", Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 10L << 30, 30, "10.00 GiB"));
        add("second.log", Observation.bytes(Quantity.KV_CACHE_AVAILABLE, 20L << 30, 31, "20.00 GiB"));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        assertThat(l.notes()).anyMatch(n -> n.contains("2 vLLM logs each describe a server (first.log, second.log)"));
    }

    /**
     * Issue 10: a second instance's python process on the card is another tenant. The log's
     * worker prefix names pid 2198 as the server's; pid 4242 (python, 32768 MiB) is not.
     */
    @Test
    void aForeignPythonProcessIsOtherProcessesNotTheServer() {
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 60000 * MIB, 9, "60000").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 24000 * MIB, 40, "24000").in(Context.builder().device("npu:0/chip:0").pid(2198L).processName("python").build()));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 32768 * MIB, 41, "32768").in(Context.builder().device("npu:0/chip:0").pid(4242L).processName("python").build()));
        add("serve.log", Observation.bytes(Quantity.WEIGHTS, 2L << 30, 5, "2.00 GiB").in(Context.builder().process("EngineCore_DP0 pid=2198").pid(2198L).build()));
        Ledger l = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null)));
        DeviceLedger d = l.devices().get(0);
        assertThat(entry(d, Component.SERVER_PROCESSES).bytes()).isEqualTo(24000 * MIB);
        assertThat(entry(d, Component.OTHER_PROCESSES).bytes()).isEqualTo(32768 * MIB);
        assertThat(entry(d, Component.OTHER_PROCESSES).counted()).isTrue();
        assertThat(entry(d, Component.OTHER_PROCESSES).note()).contains("pid 4242 python");
    }

    @Test
    void severalIdleSamplesAndABusyOne() {
        file("idle1.txt", EvidenceFormat.NPU_SMI_INFO, Moment.BASELINE);
        file("idle2.txt", EvidenceFormat.NPU_SMI_INFO, Moment.BASELINE);
        add("idle1.txt", Observation.bytes(Quantity.HBM_USED, 3412 * MIB, 9, "3412").in(Context.device("npu:0/chip:0")));
        add("idle2.txt", Observation.bytes(Quantity.HBM_USED, 3420 * MIB, 9, "3420").in(Context.device("npu:0/chip:0")));
        add("idle2.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 8 * MIB, 40, "8").in(Context.builder().device("npu:0/chip:0").pid(5L).build()));
        Entry base = entry(Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null))).devices().get(0), Component.DRIVER_BASELINE);
        // first sample: 3412 MiB, no process in it; range 3412 MiB = 3.33 GiB .. 3420 MiB = 3.34 GiB
        assertThat(base.bytes()).isEqualTo(3412 * MIB);
        assertThat(base.note()).contains("first of 2 idle samples, which range 3.33 GiB to 3.34 GiB")
                .contains("a later idle sample lists pid 5 without a name 0.01 GiB, not in this figure");
    }

    /** A ready sample and nothing else: the sum check must not present "0.00 GiB" as a sum of known lines. */
    @Test
    void nothingKnownToCountIsNotASumOfZero() {
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 40000 * MIB, 9, "40000").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        DeviceLedger d = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null))).devices().get(0);
        // 40000 MiB = 41943040000 B = 39.06 GiB, all of it residual
        assertThat(d.residualBytes()).isEqualTo(40000 * MIB);
        Check c = check(d, Check.LEDGER_SUM_VS_USED);
        assertThat(c.status()).isEqualTo(Check.Status.SKIPPED);
        assertThat(c.detail()).isEqualTo("no ledger line is known at ready, so nothing explains used 39.06 GiB; "
                + "the residual is all of it").doesNotContain("0.00");
    }

    /**
     * used known, capacity not, only vLLM's weights line counted: the residual note must say the
     * unknown lines are inside it, and the sum check must not speak of a capacity it lacks.
     */
    @Test
    void residualNamesTheUnknownLinesAndTheCheckUsesUsedWithoutCapacity() {
        file("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 40000 * MIB, 9, "40000").in(Context.device("npu:0/chip:0")));
        obs.add(new TaggedObservation(Observation.bytes(Quantity.WEIGHTS, 8L << 30, 20, "8.0 GiB").in(Context.worker("Worker_TP0 pid=1")),
                "serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP, 0, null));
        DeviceLedger d = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null))).devices().get(0);
        // 40000 MiB - 8192 MiB = 31808 MiB
        assertThat(d.residualBytes()).isEqualTo(31808 * MIB);
        assertThat(d.residualNote()).startsWith("used minus the counted entries: the driver baseline, HCCL, CANN runtime")
                .contains("all of kv_cache, graph_pool that is resident, as those lines are unknown here")
                .doesNotContain("driver growth");
        Check c = check(d, Check.LEDGER_SUM_VS_USED);
        assertThat(c.status()).isEqualTo(Check.Status.WARN);
        assertThat(c.detail()).contains("more than 2% of used is unexplained (capacity unknown)").doesNotContain("of capacity");
    }
}
