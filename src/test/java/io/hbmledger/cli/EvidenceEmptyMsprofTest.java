package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * evidence on an msprof CSV with its header and no data rows: the help promises exit 2 for an
 * empty file; it printed "0 observations" and exited 0.
 */
class EvidenceEmptyMsprofTest {

    /** npu_module_mem's header as torch_npu writes it (the corpus file's first line). */
    private static final String HEADER = "Component,Timestamp(us),Total Reserved(MB),Device\n";

    @TempDir
    Path tmp;

    @Test
    void aHeaderWithoutRowsIsEmptyExit2NamingTheFile() throws Exception {
        Path f = Files.writeString(tmp.resolve("npu_module_mem_0.csv"), HEADER);
        CliRun r = CliRun.of("evidence", f.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(f + ":1: the file has the npu_module_mem header and no rows after it: no data rows");
    }

    @Test
    void rowsHoldingOnlyNulBytesLeaveTheFileEmpty() throws Exception {
        Path f = tmp.resolve("npu_module_mem_0.csv");
        Files.write(f, (HEADER + "\0\0\0\0\0\0\0\0\n\0\0\0\0\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        CliRun r = CliRun.of("evidence", f.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(f + ":1: the file has the npu_module_mem header and 2 rows after it, all blank or holding NUL bytes");
    }

    @Test
    void anEmptyFileBesideAGoodOneIsStillExit2AndNothingIsPrintedOnStdout() throws Exception {
        // the same as for any other unusable file; issue 14: stdout stays empty on exit 2, and the
        // good file alone says it is usable
        Path empty = Files.writeString(tmp.resolve("npu_module_mem_0.csv"), HEADER);
        Path good = Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv");
        CliRun r = CliRun.of("evidence", empty.toString(), good.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("npu_module_mem_0.csv").doesNotContain(good.getFileName().toString());
        CliRun alone = CliRun.of("evidence", good.toString());
        // 77 observations: truth.json notes 77 components, one module_reserved_peak each
        assertThat(alone.out()).contains(good + "  [msprof-csv]  77 observations");
    }
}
