package io.hbmledger.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The session of an msprof file outside its export folder: the start of its name, before the table's. */
class LooseSessionTest {

    @Test
    void namesAsMsprofAndTorchNpuWriteThemAreOneSession() {
        // torch_npu ASCEND_PROFILER_OUTPUT, msprof mindstudio_profiler_output (export time, slices), SQLite exports
        assertThat(LooseSession.of("npu_module_mem.csv")).isEmpty();
        assertThat(LooseSession.of("npu_mem_20250109102030.csv")).isEmpty();
        assertThat(LooseSession.of("npu_module_mem_20250109102031.csv")).isEmpty();
        assertThat(LooseSession.of("npu_mem_slice_0_20250109.csv")).isEmpty();
        assertThat(LooseSession.of("ascend_pytorch_profiler_0.db")).isEmpty();
        assertThat(LooseSession.of("msprof_20250109102030.db")).isEmpty();
    }

    @Test
    void aPrefixBeforeTheTableIsTheSession() {
        // the corpus msprof folder: files of three sessions renamed to sit side by side
        assertThat(LooseSession.of("msinsight_level1_rank0_npu_module_mem.csv")).isEqualTo("msinsight_level1_rank0");
        assertThat(LooseSession.of("msinsight_level1_rank0_ascend_pytorch_profiler_0.db")).isEqualTo("msinsight_level1_rank0");
        assertThat(LooseSession.of("msinsight_server_rank0_memory_record_5col.csv")).isEqualTo("msinsight_server_rank0");
        assertThat(LooseSession.of("msinsight_server_rank0_npu_module_mem_crlf.csv")).isEqualTo("msinsight_server_rank0");
        assertThat(LooseSession.of("msinsight_full_db_msprof_0.db")).isEqualTo("msinsight_full_db");
        // a prefix holding a table's name: the last one is the file's table
        assertThat(LooseSession.of("npu_mem-run2-npu_mem.csv")).isEqualTo("npu_mem-run2");
    }
}
