package io.hbmledger.verdict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Source;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The finding rules on facts typed in by hand from the three shared cases' evidence (the
 * figures as the user's log and npu-smi table print them); every expected number is worked out
 * in the comment beside it, as the case's worked answer does.
 */
class VerdictTest {

    private static final double GIB = 1L << 30;
    private static final long MIB = 1L << 20;

    private static Figure gib(String name, double g, int line) {
        return Figure.bytes(name, Math.round(g * GIB), Confidence.REPORTED, null,
                List.of(new Source("x.log", line, g + " GiB")));
    }

    private static Figure value(String name, double v, int line) {
        return Figure.value(name, v, Confidence.REPORTED, null, List.of(new Source("x.log", line, "" + v)));
    }

    private static double gibOf(Finding f, String figure) {
        return f.figure(figure).orElseThrow().bytes() / GIB;
    }

    private static Finding only(List<Finding> all, Finding.Kind kind) {
        List<Finding> of = all.stream().filter(f -> f.kind() == kind).toList();
        assertThat(of).as("findings of kind %s in %s", kind, all).hasSize(1);
        return of.get(0);
    }

    /** vllm-ascend #8621: "Free memory on device (27.18/60.96 GiB) ... (0.9, 54.86 GiB)". */
    private static ServerFacts fourthInstance() {
        Map<Fact, Figure> f = new EnumMap<>(Fact.class);
        f.put(Fact.FREE_AT_START, gib("free", 27.18, 13));
        f.put(Fact.TOTAL_SEEN, gib("total", 60.96, 13));
        f.put(Fact.UTILIZATION, value("u", 0.9, 13));
        f.put(Fact.REQUESTED, gib("req", 54.86, 13));
        return new ServerFacts("engine-error-4th-instance.log", ServerFacts.Engine.V1, null, List.of("npu:0/chip:0"),
                f, new Source("x.log", 13, "ValueError"), null, null);
    }

    @Test
    void refusedStartStatesAskedFreeShortfallAndHeld() {
        RunFacts run = new RunFacts(List.of(fourthInstance()), List.of(), List.of(), RunFacts.Accelerator.NPU);
        Finding f = only(Verdict.findings(run), Finding.Kind.START_REFUSED);
        assertThat(f.severity()).isEqualTo(Finding.Severity.ERROR);
        assertThat(gibOf(f, "requested")).isCloseTo(54.86, within(0.005));
        assertThat(gibOf(f, "shortfall")).isCloseTo(27.68, within(0.005));     // 54.86 - 27.18
        assertThat(gibOf(f, "held_by_others")).isCloseTo(33.78, within(0.005)); // 60.96 - 27.18
        assertThat(f.figure("largest_utilization_that_starts").orElseThrow().value()).isEqualTo(0.44); // 27.18/60.96
        assertThat(f.text()).contains("54.86 GiB", "27.18 GiB", "33.78 GiB", "27.68 GiB");
        // both from the one refusal line: vLLM's own figures
        assertThat(f.figure("shortfall").orElseThrow().confidence()).isEqualTo(Confidence.REPORTED);
    }

    /**
     * case.md of #8621: "instances 1-3 plus driver/runtime; per-instance split unknown: no process
     * table in the excerpt". With the device's process rows, the split is the other_tenant finding's.
     */
    @Test
    void refusedStartSaysTheSplitIsUnknownWithoutAProcessTable() {
        Figure cap = Figure.bytes("capacity", 65536L << 20, Confidence.MEASURED, null, List.of());
        Figure used = Figure.bytes("used", 59872L << 20, Confidence.MEASURED, null, List.of());
        DeviceFacts bare = new DeviceFacts("npu:0/chip:0", null, cap, used, List.of());
        Finding f = only(Verdict.findings(new RunFacts(List.of(fourthInstance()), List.of(bare), List.of(),
                RunFacts.Accelerator.NPU)), Finding.Kind.START_REFUSED);
        assertThat(f.text()).contains("How the 33.78 GiB held is split among the processes is unknown");
        DeviceFacts listed = new DeviceFacts("npu:0/chip:0", null, cap, used, List.of(new DeviceFacts.ProcessFacts(2198,
                "python3", Figure.bytes("process", 13L << 30, Confidence.MEASURED, null, List.of()), false)));
        Finding g = only(Verdict.findings(new RunFacts(List.of(fourthInstance()), List.of(listed), List.of(),
                RunFacts.Accelerator.NPU)), Finding.Kind.START_REFUSED);
        assertThat(g.text()).doesNotContain("is unknown");
    }

    @Test
    void fourSharesOfOneCardAreOverSubscribed() {
        List<Figure> peers = List.of(value("u1", 0.2, 1), value("u2", 0.45, 1), value("u3", 0.70, 1));
        RunFacts run = new RunFacts(List.of(fourthInstance()), List.of(), peers, RunFacts.Accelerator.NPU);
        Finding f = only(Verdict.findings(run), Finding.Kind.OVER_SUBSCRIBED);
        assertThat(f.severity()).isEqualTo(Finding.Severity.ERROR);
        assertThat(f.figure("utilization_sum").orElseThrow().value()).isEqualTo(2.25); // 0.2+0.45+0.70+0.9
        assertThat(gibOf(f, "asked_together")).isCloseTo(137.16, within(0.01));          // 2.25 x 60.96
        assertThat(f.figure("equal_share_that_fits").orElseThrow().value()).isEqualTo(0.22); // 0.9 / 4
        assertThat(gibOf(f, "equal_share_bytes")).isCloseTo(13.41, within(0.01));         // 0.22 x 60.96
        // instance 3 (0.70) passed: at most 0.30 x 60.96 = 18.29 GiB in use before it,
        // against the (0.2 + 0.45) x 60.96 = 39.62 GiB instances 1-2 may take
        assertThat(gibOf(f, "in_use_before_instance_3_at_most")).isCloseTo(18.29, within(0.005));
        assertThat(gibOf(f, "nominal_budget_of_instances_1_to_2")).isCloseTo(39.62, within(0.005));
        assertThat(f.advice()).anyMatch(a -> a.contains("unknown"));
    }

    /** vllm #13882, V0 worker.py lines of startup.log. */
    private static ServerFacts rtx4060() {
        Map<Fact, Figure> f = new EnumMap<>(Fact.class);
        f.put(Fact.TOTAL_SEEN, gib("t", 8.00, 3));
        f.put(Fact.UTILIZATION, value("u", 0.70, 3));
        f.put(Fact.REQUESTED, gib("r", 5.60, 3));
        f.put(Fact.WEIGHTS, gib("w", 5.20, 4));
        f.put(Fact.NON_TORCH, gib("n", 0.03, 4));
        f.put(Fact.ACTIVATION_PEAK, gib("a", 1.42, 4));
        f.put(Fact.KV_CACHE, gib("k", -1.05, 4));
        f.put(Fact.GPU_BLOCKS, value("g", 0, 5));
        f.put(Fact.CPU_BLOCKS, value("c", 4681, 5));
        f.put(Fact.MAX_MODEL_LEN, value("m", 4096, 6));
        f.put(Fact.MAX_CONCURRENCY, value("x", 0.0, 6));
        return new ServerFacts("startup.log", ServerFacts.Engine.V0, null, List.of("gpu:0"), f, null, null, null);
    }

    @Test
    void negativeKvShowsTheV0Budget() {
        Finding f = only(Verdict.findings(new RunFacts(List.of(rtx4060()), List.of(), List.of(), RunFacts.Accelerator.GPU)),
                Finding.Kind.KV_NEGATIVE);
        assertThat(gibOf(f, "budget")).isCloseTo(5.60, within(0.005));
        assertThat(gibOf(f, "needed_before_kv")).isCloseTo(6.65, within(0.005)); // 5.20 + 0.03 + 1.42
        assertThat(gibOf(f, "kv_cache")).isCloseTo(-1.05, within(0.005));
        assertThat(f.text()).contains("5.60 GiB", "6.65 GiB", "-1.05 GiB", "0 KV blocks", "0.00x");
    }

    @Test
    void whatFitsInfersKvPerTokenFromV0CpuBlocks() {
        Finding f = only(Verdict.findings(new RunFacts(List.of(rtx4060()), List.of(), List.of(), RunFacts.Accelerator.GPU)),
                Finding.Kind.WHAT_FITS);
        // Qwen2.5-7B: 2 x 28 layers x 4 KV heads x 128 x 2 B = 57,344 B/token; 4 GiB / 4681 / 16 = 57,345.8
        assertThat(f.figure("kv_bytes_per_token").orElseThrow().bytes()).isEqualTo(57_344L);
        assertThat(f.figure("kv_bytes_per_token").orElseThrow().confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(f.figure("kv_for_one_request").orElseThrow().bytes()).isEqualTo(234_881_024L); // x 4096
        assertThat(f.figure("smallest_utilization").orElseThrow().value()).isEqualTo(0.86); // (6.65+0.22)/8 = 0.859
        assertThat(f.text()).contains("0.22 GiB", "0.86");
    }

    @Test
    void headroomOfA910B4SharedWithAnotherService() {
        // vllm-ascend #8809 npu-smi.txt: NPU 0 28220 / 32768 MB
        Figure cap = Figure.bytes("c", 32768 * MIB, Confidence.MEASURED, null, List.of(new Source("npu-smi.txt", 9, "32768")));
        Figure used = Figure.bytes("u", 28220 * MIB, Confidence.MEASURED, null, List.of(new Source("npu-smi.txt", 9, "28220")));
        DeviceFacts d = new DeviceFacts("npu:0/chip:0", "910B4", cap, used, List.of());
        Finding f = only(Verdict.findings(new RunFacts(List.of(), List.of(d), List.of(), RunFacts.Accelerator.NPU)), Finding.Kind.HEADROOM);
        assertThat(f.figure("free").orElseThrow().bytes()).isEqualTo(4548 * MIB); // 32768 - 28220
        assertThat(f.figure("free").orElseThrow().confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(f.text()).contains("4.44 GiB", "4,548 MiB");
        // 28220 - 3197 .. 28220 - 2787 = 25,023 .. 25,433 MiB; / 30,196 = 0.83 .. 0.84
        assertThat(f.figure("server_share_estimate_low").orElseThrow().bytes()).isEqualTo(25_023 * MIB);
        assertThat(f.figure("server_share_estimate_high").orElseThrow().bytes()).isEqualTo(25_433 * MIB);
        assertThat(f.figure("utilization_estimate").orElseThrow().confidence()).isEqualTo(Confidence.ESTIMATED);
    }

    @Test
    void aPythonProcessNotNamedByTheEvidenceIsAnotherTenant() {
        Figure p = Figure.bytes("p", 32 * 1024 * MIB, Confidence.MEASURED, null, List.of(new Source("npu-smi.txt", 20, "32768")));
        DeviceFacts d = new DeviceFacts("npu:0/chip:0", "910B2", null, null,
                List.of(new DeviceFacts.ProcessFacts(4242, "python", p, false)));
        Finding f = only(Verdict.findings(new RunFacts(List.of(), List.of(d), List.of(), RunFacts.Accelerator.NPU)),
                Finding.Kind.OTHER_TENANT);
        assertThat(f.text()).contains("pid 4242 python", "32.00 GiB");
    }

    /**
     * vLLM titles its processes VLLM::Worker_TP1 and so on: a rank of the server whose pid the log
     * did not name reads as another tenant. The finding says the title fits both readings (fresh-user
     * finding: two TP workers in an nvidia-smi paste).
     */
    @Test
    void aProcessTitledAsVllmsOwnIsSaidToBeEitherARankOrAnotherServer() {
        Figure p = Figure.bytes("p", 21_852 * MIB, Confidence.MEASURED, null, List.of(new Source("nvidia-smi.txt", 20, "21852MiB")));
        DeviceFacts d = new DeviceFacts("gpu:1", null, null, null, List.of(
                new DeviceFacts.ProcessFacts(3021, "VLLM::Worker_TP1", p, false),
                new DeviceFacts.ProcessFacts(4242, "python", p, false)));
        Finding f = only(Verdict.findings(new RunFacts(List.of(), List.of(d), List.of(), RunFacts.Accelerator.GPU)),
                Finding.Kind.OTHER_TENANT);
        assertThat(String.join("\n", f.advice())).contains("pid 3021 VLLM::Worker_TP1 is named as vLLM names its own"
                + " processes: a rank of this server that its log does not name (give the pid with --server-pid), or"
                + " another vLLM server on the card").doesNotContain("4242 python is");
    }

    /**
     * An embedding server listed in nvidia-smi's process table (TEI runs as text-embeddings-router,
     * 1,254 MiB here) is named as the serving program it is, beside a python process that is not one.
     */
    @Test
    void aServingProgramInTheProcessTableIsNamedAsOne() {
        Figure tei = Figure.bytes("p", 1_254 * MIB, Confidence.MEASURED, null, List.of(new Source("nvidia-smi.txt", 19, "1254MiB")));
        DeviceFacts d = new DeviceFacts("gpu:0", null, null, null, List.of(
                new DeviceFacts.ProcessFacts(5120, "/usr/local/bin/text-embeddings-router", tei, false),
                new DeviceFacts.ProcessFacts(4242, "python", tei, false)));
        Finding f = only(Verdict.findings(new RunFacts(List.of(), List.of(d), List.of(), RunFacts.Accelerator.GPU)),
                Finding.Kind.OTHER_TENANT);
        assertThat(f.text()).contains("pid 5120 /usr/local/bin/text-embeddings-router, TEI (text-embeddings-inference),"
                + " another serving program (1.22 GiB)").contains("pid 4242 python (1.22 GiB)");
    }

    @Test
    void aRankWithLessKvThanItsPeersIsNamed() {
        List<ServerFacts> ranks = new java.util.ArrayList<>();
        double[] kv = {20.0, 20.0, 12.5, 20.01};
        for (int r = 0; r < kv.length; r++) {
            Map<Fact, Figure> f = new EnumMap<>(Fact.class);
            f.put(Fact.KV_CACHE, gib("k", kv[r], 10 + r));
            ranks.add(new ServerFacts("serve.log", ServerFacts.Engine.V1, r, List.of("npu:" + r + "/chip:0"), f, null, null, null));
        }
        Finding f = only(Verdict.findings(new RunFacts(ranks, List.of(), List.of(), RunFacts.Accelerator.NPU)), Finding.Kind.RANK_MISMATCH);
        assertThat(f.devices()).containsExactly("npu:2/chip:0");
        assertThat(gibOf(f, "difference")).isCloseTo(-7.5, within(0.005)); // 12.5 - median 20.0
    }

    /**
     * Each rank of a TP 2 engine has its own budget. Figures typed by hand in V1's form ("Requested
     * memory: 0.9 (util), 54.86 GiB" on a 910B2, total 60.96 GiB), with ready samples: rank 0's card at
     * 30.00 GiB is far below, rank 1's at 53.50 GiB is a serving engine.
     */
    @Test
    void aReadySampleFarBelowItsRanksBudgetIsNamedPerDevice() {
        List<ServerFacts> ranks = new java.util.ArrayList<>();
        List<DeviceFacts> devices = new java.util.ArrayList<>();
        double[] used = {30.0, 53.5};
        for (int r = 0; r < 2; r++) {
            Map<Fact, Figure> f = new EnumMap<>(Fact.class);
            f.put(Fact.UTILIZATION, value("u", 0.9, 10));
            f.put(Fact.TOTAL_SEEN, gib("total", 60.96, 10));
            f.put(Fact.REQUESTED, gib("req", 54.86, 10));
            f.put(Fact.ACTIVATION_PEAK, gib("act", 2.0, 20));
            ranks.add(new ServerFacts("serve.log", ServerFacts.Engine.V1, r, List.of("npu:" + r + "/chip:0"), f, null, null, null));
            devices.add(new DeviceFacts("npu:" + r + "/chip:0", "910B2", gib("cap", 64.0, 30 + r), gib("used", used[r], 30 + r),
                    List.of(), true, new DeviceFacts.Sample(io.hbmledger.run.Moment.READY)));
        }
        Finding f = only(Verdict.findings(new RunFacts(ranks, devices, List.of(), RunFacts.Accelerator.NPU)),
                Finding.Kind.BELOW_BUDGET);
        assertThat(f.devices()).containsExactly("npu:0/chip:0");               // 53.50 / 54.86 = 0.975: not below
        assertThat(gibOf(f, "budget")).isCloseTo(54.86, within(0.005));          // as vLLM printed it
        assertThat(gibOf(f, "gap")).isCloseTo(24.86, within(0.005));             // 54.86 - 30.00
        assertThat(f.figure("used_share_of_budget").orElseThrow().value()).isEqualTo(0.55);  // 30.00 / 54.86 = 0.547
        assertThat(f.text()).contains("taken at ready");
        assertThat(f.advice().get(0)).startsWith("Not the setting: the engine printed its own budget");
        assertThat(f.advice().toString()).doesNotContain("before vLLM allocated", "after the server stopped");
    }

    /**
     * Below three quarters of the budget but within the activation peak vLLM profiled (released
     * after profiling): 40.00 / 54.86 = 0.729, yet 54.86 - 15.00 = 39.86 < 40.00, so not below.
     * Hand-typed figures; an idle baseline sample never counts.
     */
    @Test
    void aGapWithinTheActivationPeakOrAnIdleBaselineIsNotBelowTheBudget() {
        Map<Fact, Figure> f = new EnumMap<>(Fact.class);
        f.put(Fact.UTILIZATION, value("u", 0.9, 10));
        f.put(Fact.TOTAL_SEEN, gib("total", 60.96, 10));
        f.put(Fact.REQUESTED, gib("req", 54.86, 10));
        f.put(Fact.ACTIVATION_PEAK, gib("act", 15.0, 20));
        ServerFacts s = new ServerFacts("serve.log", ServerFacts.Engine.V1, null, List.of("npu:0/chip:0"), f, null, null, null);
        DeviceFacts d = new DeviceFacts("npu:0/chip:0", "910B2", gib("cap", 64.0, 30), gib("used", 40.0, 30), List.of(), true,
                new DeviceFacts.Sample(io.hbmledger.run.Moment.LOAD));
        assertThat(Verdict.findings(new RunFacts(List.of(s), List.of(d), List.of(), RunFacts.Accelerator.NPU)))
                .noneMatch(x -> x.kind() == Finding.Kind.BELOW_BUDGET);
        DeviceFacts idle = new DeviceFacts("npu:0/chip:0", "910B2", gib("cap", 64.0, 30), gib("used", 3.3, 30), List.of(), true,
                new DeviceFacts.Sample(io.hbmledger.run.Moment.BASELINE));
        assertThat(Verdict.findings(new RunFacts(List.of(s), List.of(idle), List.of(), RunFacts.Accelerator.NPU)))
                .noneMatch(x -> x.kind() == Finding.Kind.BELOW_BUDGET);
    }

    /** vllm-ascend's "Available memory: 0, total memory: 65452113920" (#5917), with the utilization when given. */
    private static ServerFacts availableMemoryZero(Figure utilization) {
        Map<Fact, Figure> f = new EnumMap<>(Fact.class);
        Figure zero = Figure.bytes("available", 0, Confidence.REPORTED, null, List.of(new Source("x.log", 10, "0")));
        f.put(Fact.DEVICE_WIDE_KV_BUDGET, zero);
        f.put(Fact.KV_CACHE, zero);
        f.put(Fact.TOTAL_SEEN, Figure.bytes("total", 65452113920L, Confidence.REPORTED, null,
                List.of(new Source("x.log", 10, "65452113920"))));
        if (utilization != null) {
            f.put(Fact.UTILIZATION, utilization);
        }
        return new ServerFacts("x.log", ServerFacts.Engine.V1, null, List.of("npu:0/chip:0"), f, null, null, null);
    }

    /**
     * vllm-ascend #5917 with both shares known: the second instance at 0.4 after one at 0.4 on a
     * 65452113920 B (60.958 GiB) 910B prints "Available memory: 0". vllm-ascend counts the first
     * instance's memory in the second's peak, so its share must exceed 0.4 (0.4 x 60.958 = 24.38 GiB)
     * plus its own needs; the co-tenant advice comes first.
     */
    @Test
    void aLaterInstanceOnVllmAscendMustCoverTheOthersShare() {
        ServerFacts second = availableMemoryZero(value("u", 0.4, 5));
        RunFacts run = new RunFacts(List.of(second), List.of(), List.of(value("u1", 0.4, 1)), RunFacts.Accelerator.NPU);
        Finding k = only(Verdict.findings(run), Finding.Kind.KV_NEGATIVE);
        assertThat(gibOf(k, "budget")).isCloseTo(24.38, within(0.005)); // 0.4 x 60.958
        assertThat(k.figure("other_utilizations_sum").orElseThrow().value()).isEqualTo(0.4);
        assertThat(k.text()).contains("0.4 x 60.96 GiB = 24.38 GiB", "is not more than that");
        assertThat(k.advice().get(0)).contains("above 0.4 (24.38 GiB of 60.96 GiB)");
        // the same figures without the peer: the general advice first
        RunFacts alone = new RunFacts(List.of(second), List.of(), List.of(), RunFacts.Accelerator.NPU);
        assertThat(only(Verdict.findings(alone), Finding.Kind.KV_NEGATIVE).advice().get(0)).startsWith("Raise");
    }

    /**
     * The same refusal with an npu-smi process table instead of stated shares: another process
     * (pid 3052, the first instance) holds 26100 MiB = 25.49 GiB on the card, 25.49 / 60.958 =
     * 0.418 of the total, so this instance's share must be above 0.42 plus its own needs.
     */
    @Test
    void aProcessTableGivesTheShareALaterInstanceMustCover() {
        ServerFacts second = availableMemoryZero(null);
        Figure p = Figure.bytes("pid 3052", 26100 * MIB, Confidence.MEASURED, null, List.of(new Source("npu-smi.txt", 13, "26100")));
        DeviceFacts d = new DeviceFacts("npu:0/chip:0", "910B2", null, null,
                List.of(new DeviceFacts.ProcessFacts(3052, "python3", p, false)));
        Finding k = only(Verdict.findings(new RunFacts(List.of(second), List.of(d), List.of(), RunFacts.Accelerator.NPU)),
                Finding.Kind.KV_NEGATIVE);
        assertThat(gibOf(k, "held_by_other_processes")).isCloseTo(25.49, within(0.005));
        assertThat(k.figure("others_share_of_total").orElseThrow().value()).isEqualTo(0.42);
        assertThat(k.advice().get(0)).contains("25.49 GiB", "above 0.42");
    }
    /**
     * vllm #14376 (V1 on one 48 GB L40S): a second TinyLlama at 0.2 beside a first at 0.2 is
     * refused with "No available memory for the cache blocks"; 0.2 then 0.3 starts. The log prints
     * no budget figures; the stated peer share is the sign that another instance's memory was
     * counted as this one's, and that advice comes first.
     */
    @Test
    void aCudaKvRefusalBesideAStatedPeerNamesTheOthersShare() {
        Map<Fact, Figure> f = new EnumMap<>(Fact.class);
        f.put(Fact.UTILIZATION, value("u", 0.2, 3));
        ServerFacts second = new ServerFacts("issue.md", ServerFacts.Engine.V1, null, List.of("gpu:0"), f, null,
                new Source("issue.md", 6, "No available memory for the cache blocks"), null);
        RunFacts run = new RunFacts(List.of(second), List.of(), List.of(value("u1", 0.2, 3)), RunFacts.Accelerator.GPU);
        Finding k = only(Verdict.findings(run), Finding.Kind.KV_NEGATIVE);
        assertThat(k.text()).contains("vllm #2248, #10533, #14376", "take 0.2 of the total", "is not more than that");
        assertThat(k.advice().get(0)).startsWith("On such versions a later instance's").contains("above 0.2 plus");
        // no peer, no process table: the general advice alone
        RunFacts alone = new RunFacts(List.of(second), List.of(), List.of(), RunFacts.Accelerator.GPU);
        assertThat(only(Verdict.findings(alone), Finding.Kind.KV_NEGATIVE).advice()).hasSize(1);
    }
}
