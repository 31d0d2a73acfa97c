package io.hbmledger.golden;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.cli.Main;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import picocli.CommandLine;

/**
 * Text (one screen and --detail) and JSON reports of every bundled example, every corpus file and every shared case,
 * compared with golden files made by the code as it was before a change. A restructuring must
 * keep them byte for byte; a change meant to alter a report regenerates them on purpose with
 * {@code mvn test -Dtest=GoldenReportsTest -Dgolden.update=true} and the diff of
 * {@code src/test/resources/golden} shows every line it altered.
 */
class GoldenReportsTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");

    @TestFactory
    List<DynamicTest> bundledExamples() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String example : List.of("a3-llama3.1-8b-eagle3", "910b2c-deepseek-r1-tp16-oom")) {
            String dir = "examples/" + example;
            tests.addAll(text("example-" + example, "analyze", "--no-write", dir));
            tests.add(golden("example-" + example + "-all.txt", "analyze", "--no-write", "--all-devices", dir));
            tests.add(golden("example-" + example + ".json", "analyze", "--no-write", "--format", "json", dir));
        }
        return tests;
    }

    @TestFactory
    List<DynamicTest> corpusFiles() throws IOException {
        Path corpus = Corpus.root();
        List<DynamicTest> tests = new ArrayList<>();
        for (String kind : List.of("npu-smi", "nvidia-smi", "vllm-log", "msprof")) {
            for (Path file : files(corpus.resolve(kind))) {
                String name = file.getFileName().toString();
                if (name.endsWith(".sql") || name.endsWith("-wal") || name.endsWith("-shm")) {
                    continue;
                }
                String arg = "../shared/corpus/" + kind + "/" + name;
                if (!UPDATE && !Files.exists(GOLDEN.resolve("corpus-" + kind + "-" + name + ".json"))) {
                    // a file the corpus gained after the goldens were made: nothing to compare it with
                    // yet, which is not a regression (the corpus check and the contract test still read it)
                    tests.add(DynamicTest.dynamicTest("corpus-" + kind + "-" + name, () -> Assumptions.abort(
                            "no golden report for the new corpus file " + arg + ": make it with -Dgolden.update=true")));
                    continue;
                }
                tests.addAll(text("corpus-" + kind + "-" + name, "analyze", "--no-write", arg));
                tests.add(golden("corpus-" + kind + "-" + name + ".json",
                        "analyze", "--no-write", "--format", "json", arg));
            }
        }
        return tests;
    }

    @TestFactory
    List<DynamicTest> sharedCases() throws IOException {
        Path corpus = Corpus.root();
        List<DynamicTest> tests = new ArrayList<>();
        for (Path dir : files(corpus.resolveSibling("cases"))) {
            List<String> args = new ArrayList<>(List.of("analyze", "--no-write"));
            for (Path f : files(dir)) {
                if (!f.getFileName().toString().equals("case.md")) {
                    args.add("../shared/cases/" + dir.getFileName() + "/" + f.getFileName());
                }
            }
            String name = "case-" + dir.getFileName();
            tests.addAll(text(name, args.toArray(String[]::new)));
            List<String> json = new ArrayList<>(args);
            json.add(2, "--format");
            json.add(3, "json");
            tests.add(golden(name + ".json", json.toArray(String[]::new)));
        }
        return tests;
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    /**
     * The default one-screen text and the {@code --detail} view. The detail goldens are the text
     * reports as they were before the one-screen view became the default (only their first line,
     * the command, gained {@code --detail}): the detail view must stay byte for byte what it was.
     */
    private static List<DynamicTest> text(String name, String... args) {
        List<String> detail = new ArrayList<>(List.of(args));
        detail.add(2, "--detail");
        return List.of(golden(name + ".txt", args), golden(name + "-detail.txt", detail.toArray(String[]::new)));
    }

    private static DynamicTest golden(String name, String... args) {
        return DynamicTest.dynamicTest(name, () -> {
            String actual = run(args);
            Path file = GOLDEN.resolve(name);
            if (UPDATE) {
                Files.createDirectories(GOLDEN);
                Files.writeString(file, actual, StandardCharsets.UTF_8);
                return;
            }
            assertThat(file).as("golden file %s (make it with -Dgolden.update=true)", file).exists();
            assertThat(actual).as("report of %s", String.join(" ", args))
                    .isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
        });
    }

    /** Exit code, stdout and stderr of one in-process run, as one text. */
    private static String run(String... args) {
        CommandLine cl = Main.newCommandLine(args);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return "# " + String.join(" ", args) + "\n# exit " + exit + "\n# stdout\n" + out
                + "# stderr\n" + err;
    }
}
