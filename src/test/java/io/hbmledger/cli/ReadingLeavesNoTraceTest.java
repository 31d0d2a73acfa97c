package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * issue 14, items 6 and 7: reading changes nothing beside the evidence (no SQLite -shm), control
 * characters never reach the terminal raw, a refused analyze does not leave a stale report.json
 * to be read as its answer, and a refused evidence prints nothing on stdout.
 */
class ReadingLeavesNoTraceTest {

    @TempDir
    Path tmp;

    static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aDatabaseWithAPendingWalIsReadWithoutAShmBesideIt() throws Exception {
        // the corpus export (its -wal is empty), given a pending WAL: a writer appends one NPU_MEM row
        // and, while it still holds the file, the database and its WAL are copied into the run
        String base = "msinsight_level1_rank0_ascend_pytorch_profiler_0.db";
        Path writing = Files.createDirectories(tmp.resolve("writing"));
        Path run = Files.createDirectories(tmp.resolve("run"));
        Files.copy(Corpus.file("msprof/" + base), writing.resolve(base));
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + writing.resolve(base));
             java.sql.Statement st = c.createStatement()) {
            st.execute("PRAGMA journal_mode=WAL");
            st.execute("PRAGMA wal_autocheckpoint=0");
            st.execute("INSERT INTO NPU_MEM SELECT * FROM NPU_MEM LIMIT 1");
            Files.copy(writing.resolve(base), run.resolve(base));
            Files.copy(writing.resolve(base + "-wal"), run.resolve(base + "-wal"));
        }
        assertThat(Files.size(run.resolve(base + "-wal"))).as("the WAL is pending").isPositive();
        List<String> before = names(run);
        CliRun r = CliRun.of("evidence", run.resolve(base).toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("[msprof-db]").doesNotContain("could not be applied");
        assertThat(names(run)).isEqualTo(before).doesNotContain(base + "-shm");
    }

    @Test
    void controlCharactersAreEscapedOnTheTerminal() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(new TerminalSafeOutput(bytes), true, StandardCharsets.UTF_8)) {
            ps.print("model \u001b]0;owned\u0007 \u001b[31mred\u009b2J tab\there \u00e9 ok\n");
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("model \\x1b]0;owned\\x07 \\x1b[31mred\\u009b2J tab\there \u00e9 ok\n");
    }

    @Test
    void plainLinesPassInOneWrite() throws Exception {
        // stdout flushes each write: a JSON document written line by line was 22,000 system
        // calls for a 1 GiB msprof export (issue 17); line ends, tabs and CRs need no look
        java.util.List<Integer> writes = new java.util.ArrayList<>();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                writes.add(len);
                super.write(b, off, len);
            }

            @Override
            public synchronized void write(int b) {
                writes.add(1);
                super.write(b);
            }
        };
        String doc = "{\n\t\"a\": 1,\r\n".repeat(500) + "}\n";
        byte[] utf8 = doc.getBytes(StandardCharsets.UTF_8);
        new TerminalSafeOutput(bytes).write(utf8, 0, utf8.length);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(doc);
        assertThat(writes).containsExactly(utf8.length);
    }

    @Test
    void aFileNameWithAnEscapeSequenceReachesTheTerminalEscaped() throws Exception {
        Path evil = Files.writeString(tmp.resolve("smi\u001b[2J.txt"), "not evidence at all\n");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dfile.encoding=UTF-8", "-Dsun.jnu.encoding=UTF-8", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "evidence", evil.toString()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isEqualTo(2);
        assertThat(text).contains("smi\\x1b[2J.txt").doesNotContain("\u001b");
    }

    @Test
    void jsonOnTheTerminalHoldsNoControlCharacterAndTheSameName() throws Exception {
        // evidence --format json writes its document as bytes, past TerminalSafeOutput (issue 17):
        // Jackson's escapes must keep ESC, DEL and the C1 controls out of it, as valid JSON escapes
        String name = "log\u001b[2J\u007f\u009b31m.log";
        Path evil = tmp.resolve(name);
        Files.copy(Corpus.file("vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log"), evil);
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dfile.encoding=UTF-8", "-Dsun.jnu.encoding=UTF-8", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "evidence", "--format", "json", evil.toString()).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).contains("log\\u001B[2J\\u007F\\u009B31m.log")
                .doesNotContain("\u001b").doesNotContain("\u007f").doesNotContain("\u009b");
        com.fasterxml.jackson.databind.JsonNode doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out);
        assertThat(doc.at("/files/0/path").asText()).isEqualTo(evil.toString());
        assertThat(doc.at("/files/0/observations").size()).isPositive();
    }

    @Test
    void outputThatCannotBeWrittenIsSaidAndTheExitIsNotZero() throws Exception {
        // a full disk: before, evidence > out.json left the file cut short and exited 0
        Path full = Path.of("/dev/full");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(full), "no /dev/full on this system");
        Path log = Corpus.file("vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log");
        Process p = javaMain("evidence", "--format", "json", log.toString()).redirectOutput(full.toFile()).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err).isEqualTo(Main.EXIT_OUTPUT_FAILED);
        assertThat(err).contains("standard output could not be written (No space left on device)");
    }

    @Test
    void aReaderThatStopsReadingIsNoFailure() throws Exception {
        // | head: the reader goes away (a broken pipe); the run itself did what it was asked
        Path log = Corpus.file("vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log");
        Process p = javaMain("evidence", "--format", "json", log.toString()).start();
        p.getInputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err).isZero();
        assertThat(err).doesNotContain("could not be written");
    }

    private static ProcessBuilder javaMain(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dfile.encoding=UTF-8", "-Dsun.jnu.encoding=UTF-8", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    @Test
    void aRefusedAnalyzeRenamesTheStaleReportAndSaysSo() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(run.resolve("run.json"), "{\"schema\": \"hbm-ledger/run/1\", \"evidence\": [");
        Files.writeString(run.resolve("report.json"), "{\"earlier\": true}");
        CliRun noWrite = CliRun.of("analyze", run.toString(), "--no-write");
        assertThat(noWrite.exit()).isEqualTo(2);
        assertThat(noWrite.err()).contains("report.json is from an earlier analysis", "left as it was (--no-write)");
        assertThat(run.resolve("report.json")).exists();

        CliRun r = CliRun.of("analyze", run.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("was renamed to report.json.stale");
        assertThat(run.resolve("report.json")).doesNotExist();
        assertThat(run.resolve("report.json.stale")).hasContent("{\"earlier\": true}");
    }

    @Test
    void evidencePrintsNothingOnStdoutWhenItExitsTwo() throws Exception {
        Path good = Files.writeString(tmp.resolve("npu_module_mem.csv"),
                "Component,Timestamp(us),Total Reserved(MB),Device\nHCCL,1.0\t,2.0,NPU:0\n");
        Path bad = Files.writeString(tmp.resolve("notes.txt"), "hello\n");
        for (String format : new String[] {"text", "json"}) {
            CliRun r = CliRun.of("evidence", "--format", format, good.toString(), bad.toString());
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.out()).as(format).isEmpty();
            assertThat(r.err()).contains("notes.txt");
        }
    }
}
