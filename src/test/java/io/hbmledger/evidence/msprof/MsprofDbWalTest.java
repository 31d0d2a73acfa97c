package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.cli.Main;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** SQLite exports still being written (pending WAL), and bad files among good ones on the command line. */
class MsprofDbWalTest {

    @TempDir
    Path dir;

    @Test
    void rowsStillInTheWalAreRead() throws Exception {
        Path db = dir.resolve("ascend_pytorch_profiler_0.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            try (Statement st = c.createStatement()) {
                st.execute("PRAGMA journal_mode=WAL");
                st.execute("PRAGMA wal_autocheckpoint=0");
                // the torch_npu schema (corpus ascend_pytorch_profiler_0.db.schema.sql)
                st.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT)");
                st.execute("CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs INTEGER,deviceId INTEGER)");
                st.execute("INSERT INTO STRING_IDS VALUES (363,'app'),(364,'device')");
                st.execute("INSERT INTO NPU_MEM VALUES (364,0,1000,5000,2),(364,0,3000,6000,2),(363,0,700,6000,2)");
            }
            // the writer is still open: the rows are in the -wal file, not yet in the database file
            assertThat(Files.size(dir.resolve("ascend_pytorch_profiler_0.db-wal"))).isPositive();
            EvidenceFile f = EvidenceReaders.all().read(db, "ascend_pytorch_profiler_0.db");
            Observation dev = f.observations().stream().filter(o -> o.quantity() == Quantity.DEVICE_HBM_PEAK)
                    .findFirst().orElseThrow();
            // max of 1000 and 3000 bytes, rowid 2, 6000 ns = 6 us, device id 2
            assertThat(dev.bytes()).isEqualTo(3000L);
            assertThat(dev.line()).isEqualTo(2);
            assertThat(dev.context().timestampUs()).isEqualTo(6L);
            assertThat(dev.context().device()).isEqualTo("npu:2");
            assertThat(f.observations()).anyMatch(o -> o.quantity() == Quantity.APP_HBM_PEAK && o.bytes() == 700L);
        }
    }

    @Test
    void evidenceVerbExitsTwoForACorruptDatabaseAndPrintsNothingOnStdout() throws Exception {
        Path good = dir.resolve("npu_module_mem.csv");
        Files.writeString(good, "Component,Timestamp(us),Total Reserved(MB),Device\nHCCL,1.0\t,2.0,NPU:0\n");
        Path bad = dir.resolve("msprof_1.db");
        byte[] junk = new byte[4096];
        System.arraycopy("SQLite format 3\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), 0, junk, 0, 16);
        java.util.Arrays.fill(junk, 16, junk.length, (byte) 0x5a);
        Files.write(bad, junk);
        CommandLine cl = Main.newCommandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("evidence", "--format", "json", good.toString(), bad.toString());
        assertThat(code).isEqualTo(2);
        // issue 14: a listing of the good file alone read as a whole answer; now stdout stays empty
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).contains("msprof_1.db: cannot read as an msprof SQLite export");
    }
}
