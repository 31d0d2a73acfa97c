package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * analyze of an export where one msprof CSV has its header and no rows: evidence refuses such a
 * file (exit 2); analyze left it out without a word (fresh-user finding). It now says so in the
 * notes, naming the file, and reads the others.
 */
class AnalyzeEmptyMsprofTest {

    @TempDir
    Path tmp;

    @Test
    void aHeaderOnlyFileAmongGoodOnesIsNamedInTheNotes() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("PROF_000001_x/mindstudio_profiler_output"));
        Files.writeString(out.resolve("npu_module_mem_20250101.csv"), "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                + "0,HCCL,1000.000\t,2048,NPU:0\n0,HCCL,2000.000\t,4096,NPU:0\n");
        Path empty = Files.writeString(out.resolve("npu_mem_20250101.csv"),
                "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n");
        CliRun r = CliRun.of("analyze", "--no-write", tmp.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().replaceAll("\\s+", " ")).contains("msprof: " + empty
                + ":1: the file has the npu_mem header and no rows after it: no data rows, so nothing to read");
        // the good file is still read: HCCL's peak 4096 KiB = 4 MiB
        assertThat(r.out()).contains("hccl");
    }
}
