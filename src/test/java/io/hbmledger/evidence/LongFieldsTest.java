package io.hbmledger.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Numbers too long or too large for a byte count: refused cheaply as out of range with a
 * warning that quotes at most {@link Quote#MAX_CHARS} characters, never parsed for minutes,
 * never an exception's stack trace, never a whole megabyte cell echoed to the terminal.
 */
class LongFieldsTest {

    @TempDir
    Path dir;

    private EvidenceFile read(String name, byte[] bytes) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return EvidenceReaders.all().read(p, name);
    }

    /** The corpus npu_module_mem export with data row 5's Total Reserved replaced by {@code cell}. */
    private byte[] moduleMemWithCell(String cell) throws Exception {
        List<String> lines = Files.readAllLines(Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv"));
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (i == 5) {
                // "SLOG,1736408883....\t,0.0,NPU:0": the third field is Total Reserved(MB)
                String[] f = l.split(",", -1);
                l = f[0] + "," + f[1] + "," + cell + "," + f[3];
            }
            b.append(l).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // 89 s before the cap
    void aTwoMillionDigitCellIsOutOfRangeAtOnceAndQuotedShort() throws Exception {
        String digits = "1" + "7".repeat(1_999_999);
        EvidenceFile f = read("npu_module_mem.csv", moduleMemWithCell(digits));
        String w = f.warnings().stream().filter(s -> s.startsWith("row 5:")).findFirst().orElseThrow();
        assertThat(w).isEqualTo("row 5: field 3 '" + "1" + "7".repeat(79) + "...' (2,000,000 bytes) is out of range"
                + " (a byte count has at most 19 digits); value ignored");
        // the same 77 series as the untouched file: the row's other cells were not used either way
        assertThat(f.observations()).hasSize(77);
    }

    @Test
    void aLineLongerThanAnyRowIsSkippedNotHeldWhole() throws Exception {
        // 20 MiB of digits in one cell: past CsvScanner.MAX_LINE (16 MiB), so the row is skipped up
        // to its line break instead of growing the read buffer to hold it (a 300 MB cell took 1.2 GB)
        EvidenceFile f = read("npu_module_mem.csv", moduleMemWithCell("7".repeat(20 << 20)));
        assertThat(f.warnings()).contains("row 5: longer than 16 MiB without a line break (no msprof row is near"
                + " that; a runaway cell or binary data?); row ignored up to its line break");
        // every other row is read, and numbered as in the file: the 77 series of the corpus file
        assertThat(f.observations()).hasSize(77);
        // the skipped row still counts: IDEDD's maximum keeps its row 15 of the corpus file
        assertThat(f.observations().get(1).context().component()).isEqualTo("IDEDD");
        assertThat(f.observations().get(1).line()).isEqualTo(15);
    }

    @Test
    void aHugeNonNumberCellIsQuotedShort() throws Exception {
        EvidenceFile f = read("npu_module_mem.csv", moduleMemWithCell("x".repeat(5_000_000)));
        String w = f.warnings().stream().filter(s -> s.startsWith("row 5:")).findFirst().orElseThrow();
        assertThat(w).hasSizeLessThan(200).contains("(5,000,000 bytes) is not a number");
    }

    @Test
    void anExponentThatWouldExpandToABillionDigitsIsOutOfRange() throws Exception {
        // 1e999999999 MiB: BigDecimal.setScale(0) would build a 10^999999999 integer
        EvidenceFile f = read("npu_module_mem.csv", moduleMemWithCell("1e999999999"));
        assertThat(f.warnings()).anyMatch(s -> s.startsWith("row 5: field 3 '1e999999999' is out of range"));
    }

    @Test
    void aTwentyDigitByteCountInAVllmLogIsAWarningNotACrash() throws Exception {
        String log = "INFO 04-12 08:21:19 [worker.py:267] Loading model weights took 99999999999999999999999 GB\n"
                + "INFO 04-12 08:21:20 [kv_cache_utils.py:716] Maximum concurrency for 99999999999 tokens per request: 3.50x\n";
        EvidenceFile f = read("serve.log", log.getBytes(StandardCharsets.UTF_8));
        assertThat(f.warnings()).contains("line 1: the weights phrase is followed by '99999999999999999999999 GB',"
                + " a number out of range (more digits than a 64-bit count holds); weights left out (unknown, not 0)");
        // 3.50x is still the concurrency; only the token count is out of range
        assertThat(f.observations()).singleElement().satisfies(o -> {
            assertThat(o.quantity()).isEqualTo(Quantity.MAX_CONCURRENCY);
            assertThat(o.value()).isEqualTo(3.5);
            assertThat(o.context().tokensPerRequest()).isNull();
        });
    }

    @Test
    void anOutOfRangeLfsSizeOrIndexTotalIsAnErrorNamingTheFile() {
        byte[] pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 999999999999999999999999\n")
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> read("model.safetensors", pointer)).isInstanceOf(EvidenceException.class)
                .hasMessageContaining("readable \"size <bytes>\" line");
        byte[] index = ("{\n  \"metadata\": {\n    \"total_size\": \"99999999999999999999999\"\n  },\n"
                + "  \"weight_map\": {\"a\": \"model.safetensors\"}\n}\n").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> read("model.safetensors.index.json", index)).isInstanceOf(EvidenceException.class)
                .hasMessageStartingWith("model.safetensors.index.json:3: metadata.total_size '99999999999999999999999' is out of range");
    }

    @Test
    void anSqliteTextOrRealAmountBeyondALongIsOutOfRangeNotEightExbibytes() throws Exception {
        Path db = dir.resolve("msprof_0.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             Statement st = c.createStatement()) {
            // the torch_npu NPU_MEM layout as in MsprofDbWalTest; 364 = 'device'
            st.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT)");
            st.execute("CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs INTEGER,deviceId INTEGER)");
            st.execute("INSERT INTO STRING_IDS VALUES (364,'device')");
            // NUMERIC affinity keeps 1e300 as a REAL, turns 100,000 nines into REAL Infinity, and
            // keeps text that is not a number (a unit glued on) as TEXT
            st.execute("INSERT INTO NPU_MEM VALUES (364,0,1000,5000,2),(364,0,1e300,6000,2),(364,0,'"
                    + "9".repeat(100_000) + "',7000,2),(364,0,'" + "9".repeat(100_000) + " KB',8000,2)");
        }
        EvidenceFile f = EvidenceReaders.all().read(db, "msprof_0.db");
        // rows 2-4 are refused; the maximum is row 1's 1000 B, not Math.round(1e300) = 2^63 - 1 B
        assertThat(f.observations()).singleElement().satisfies(o -> {
            assertThat(o.bytes()).isEqualTo(1000L);
            assertThat(o.line()).isEqualTo(1);
        });
        assertThat(f.warnings()).anyMatch(w -> w.contains("row 2: device_hbm_peak value '1.0E300' is out of range"));
        assertThat(f.warnings()).anyMatch(w -> w.contains("row 3: device_hbm_peak value 'Infinity' is out of range"));
        assertThat(f.warnings()).anyMatch(w -> w.contains("row 4: device_hbm_peak value '" + "9".repeat(80)
                + "...' (100,003 bytes) is not a number"));
    }

    @Test
    void quoteCutsAtEightyCharactersAndEscapesControlBytes() {
        assertThat(Quote.of("3000")).isEqualTo("'3000'");
        assertThat(Quote.of("a\0b\u001b[0m")).isEqualTo("'a\\0b\\u001b[0m'");
        assertThat(Quote.of("9".repeat(81))).isEqualTo("'" + "9".repeat(80) + "...' (81 chars)");
        assertThat(Quote.cut("x".repeat(1000))).isEqualTo("x".repeat(80) + "... (1,000 chars)");
    }
}
