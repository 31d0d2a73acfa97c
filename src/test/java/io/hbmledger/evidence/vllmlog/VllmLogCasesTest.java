package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The vLLM logs of the worked cases in ../shared/cases, read through the reader registry. The
 * figures are those of each case.md; bytes are worked out as number x 2^30 (GiB, vLLM "GB"),
 * rounded half-up.
 */
class VllmLogCasesTest {

    private static final double GIB = 1024.0 * 1024 * 1024;

    private static EvidenceFile read(String caseName, String file) throws Exception {
        Path p = SharedCase.file(caseName, file);
        return EvidenceReaders.all().read(p, file);
    }

    private static List<Observation> of(EvidenceFile f, String quantity) {
        return f.observations().stream().filter(o -> o.quantity().contractName().equals(quantity)).toList();
    }

    private static long gib(double n) {
        return Math.round(n * GIB);
    }

    /** vllm-13882: V0 worker.py (early 2025) on an 8 GB RTX 4060, utilization 0.70, KV -1.05 GiB. */
    @Test
    void rtx4060NegativeKvBudgetFiguresOfTheV0Summary() throws Exception {
        EvidenceFile f = read("vllm-13882-rtx4060-8gb-negative-kv", "startup.log");
        assertThat(f.format()).isEqualTo(EvidenceFormat.VLLM_LOG);
        assertThat(of(f, "total_memory")).extracting(Observation::line, Observation::bytes)
                .containsExactly(tuple(3, gib(8.00)));
        assertThat(of(f, "memory_utilization")).extracting(Observation::line, Observation::value)
                .containsExactly(tuple(3, 0.70));
        // 8.00 x 0.70 = 5.60 GiB, as vLLM printed it
        assertThat(of(f, "instance_budget")).extracting(Observation::bytes).containsExactly(gib(5.60));
        assertThat(of(f, "weights")).extracting(Observation::line, Observation::bytes)
                .containsExactly(tuple(1, gib(5.2032)), tuple(4, gib(5.20)));
        assertThat(of(f, "non_torch")).extracting(Observation::bytes).containsExactly(gib(0.03));
        assertThat(of(f, "activation_peak")).extracting(Observation::bytes).containsExactly(gib(1.42));
        assertThat(of(f, "kv_cache_available")).extracting(Observation::bytes).containsExactly(gib(-1.05));
        // 5.60 - (5.20 + 0.03 + 1.42) = -1.05: the figures the log gives add up as the case says
        assertThat(gib(5.60) - gib(5.20) - gib(0.03) - gib(1.42)).isCloseTo(gib(-1.05), org.assertj.core.data.Offset.offset(2L));
        assertThat(of(f, "gpu_blocks")).extracting(Observation::value).containsExactly(0.0);
        assertThat(of(f, "max_concurrency")).extracting(Observation::value, x -> x.context().tokensPerRequest())
                .containsExactly(tuple(0.0, 4096));
        // the traceback is cut after five lines: no refusal line is in the excerpt
        assertThat(of(f, "memory_failure")).isEmpty();
    }

    /** ascend-8621: vllm-ascend (v0.16-v0.18 worker.py _init_device) refuses the fourth instance. */
    @Test
    void fourthInstanceRefusedAtTheStartupCheck() throws Exception {
        EvidenceFile f = read("ascend-8621-four-instances-one-910b2", "engine-error-4th-instance.log");
        assertThat(f.format()).isEqualTo(EvidenceFormat.VLLM_LOG);
        assertThat(of(f, "free_memory_at_start")).extracting(Observation::line, Observation::bytes, Observation::text, x -> x.context().process())
                .containsExactly(tuple(13, gib(27.18), "27.18 GiB", "EngineCore_DP0 pid=2198"));
        assertThat(of(f, "total_memory")).extracting(Observation::bytes).containsExactly(gib(60.96));
        assertThat(of(f, "memory_utilization")).extracting(Observation::value).containsExactly(0.9);
        // requested = 0.9 x 60.96 = 54.864 -> printed rounded 54.86 GiB
        assertThat(of(f, "instance_budget")).extracting(Observation::bytes).containsExactly(gib(54.86));
        assertThat(of(f, "memory_failure")).extracting(Observation::line, x -> x.context().component())
                .containsExactly(tuple(13, "startup_check"));
        assertThat(of(f, "memory_failure").get(0).text())
                .startsWith("Free memory on device (27.18/60.96 GiB) on startup is less than desired");
    }
}
