package io.hbmledger.ledger;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.load.RankLabels;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;

/**
 * Evidence sets copied by hand from real corpus files, as the evidence contract says the parsers
 * report them (line numbers and texts are the files' own). Used by the rule tests and the
 * report-writer tests.
 */
public final class LedgerFixtures {

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

    /**
     * vllm-ascend issue 2667: Atlas A3, Llama-3.1-8B + EAGLE3, one rank on device 0; the npu-smi
     * table lists no process, so it is the idle baseline; there is no sample at ready.
     */
    public static EvidenceSet a3() {
        LedgerFixtures x = new LedgerFixtures();
        x.a3Body();
        return new EvidenceSet(x.obs, x.files, Layout.of(1, 1, List.of(0), List.of(), "Llama-3.1-8B"));
    }

    private void a3Body() {
        file("npu-smi.txt", EvidenceFormat.NPU_SMI_INFO, Moment.BASELINE);
        file("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP);
        // npu-smi line 9: "| 0     0   | 0000:9D:00.0 | 0  0 / 0  3412 / 65536 |" (Chip 0, Phy-ID 0)
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_USED, 3412 * MIB, 9, "3412").in(Context.builder().device("npu:0/chip:0").deviceId(0).build()));
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.builder().device("npu:0/chip:0").deviceId(0).build()));
        // line 12: chip 1 (Phy-ID 1), another device: must not leak into device 0
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_USED, 3189 * MIB, 12, "3189").in(Context.builder().device("npu:0/chip:1").deviceId(1).build()));
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 12, "65536").in(Context.builder().device("npu:0/chip:1").deviceId(1).build()));
        String p = "EngineCore_0 pid=1440043";
        add("serve.log", Observation.value(Quantity.MEMORY_UTILIZATION, 0.8, 8, "0.8"));
        add("serve.log", Observation.bytes(Quantity.WEIGHTS, 16948692569L, 46, "15.7847 GB").in(Context.worker(p)));
        add("serve.log", Observation.bytes(Quantity.AVAILABLE_MEMORY, 34184553369L, 47, "34184553369").in(Context.worker(p)));
        add("serve.log", Observation.bytes(Quantity.TOTAL_MEMORY, 65464696832L, 47, "65464696832").in(Context.worker(p)));
        add("serve.log", Observation.value(Quantity.KV_CACHE_TOKENS, 252800, 48, "252,800").in(Context.worker(p)));

    }

    /**
     * vllm-ascend issue 264: 16 x 910B2C, DeepSeek-R1 TP16 over Ray; NPU 15 ran out of memory
     * in the profile run; the npu-smi sample was taken with the workers still holding memory.
     */
    public static EvidenceSet oom() {
        LedgerFixtures x = new LedgerFixtures();
        x.oomBody();
        List<Integer> devices = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            devices.add(i);
        }
        return new EvidenceSet(x.obs, x.files, Layout.of(16, 1, devices, List.of(418635L, 418714L), "DeepSeek-R1"));
    }

    private void oomBody() {
        file("npu-smi.txt", EvidenceFormat.NPU_SMI_INFO, Moment.OOM);
        file("oom.log", EvidenceFormat.VLLM_LOG, Moment.OOM);
        // npu-smi line 54: "| 0 | 0000:D0:00.0 | 0  0 / 0  59351/ 65536 |" of NPU 15 (no Phy-ID column)
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_USED, 59351 * MIB, 54, "59351").in(Context.device("npu:15/chip:0")));
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 54, "65536").in(Context.device("npu:15/chip:0")));
        // line 9 (NPU 0) and 59 (its process): another device
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_USED, 59356 * MIB, 9, "59356").in(Context.device("npu:0/chip:0")));
        add("npu-smi.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("npu-smi.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 56057 * MIB, 59, "56057").in(Context.builder().device("npu:0/chip:0").pid(418635L).processName("vllm").build()));
        // line 89: "| 15  0 | 418714 | rayNPURayWork | 56063 |"
        add("npu-smi.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 56063 * MIB, 89, "56063").in(Context.builder().device("npu:15/chip:0").pid(418714L).processName("rayNPURayWork").build()));
        // log line 16: "Tried to allocate 17.50 GiB (NPU 15; 60.97 GiB total capacity; 53.74 GiB already
        // allocated; 53.74 GiB current active; 5.96 GiB free; 54.36 GiB reserved in total by PyTorch)"
        String p = "NPURayWorkerWrapper pid=399601, ip=192.0.2.10";
        add("oom.log", Observation.bytes(Quantity.OOM_TRIED, 18790481920L, 16, "17.50 GiB").in(Context.builder().process(p).device("npu:15").build()));
        add("oom.log", Observation.bytes(Quantity.OOM_TOTAL_CAPACITY, 65466039009L, 16, "60.97 GiB").in(Context.builder().process(p).device("npu:15").build()));
        add("oom.log", Observation.bytes(Quantity.OOM_ALLOCATED, 57702885622L, 16, "53.74 GiB").in(Context.builder().process(p).device("npu:15").build()));
        add("oom.log", Observation.bytes(Quantity.OOM_FREE, 6399501271L, 16, "5.96 GiB").in(Context.builder().process(p).device("npu:15").build()));
        add("oom.log", Observation.bytes(Quantity.OOM_RESERVED, 58368605553L, 16, "54.36 GiB").in(Context.builder().process(p).device("npu:15").build()));

    }
}
