package io.hbmledger.sim;

import io.hbmledger.cli.Main;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The build's training run for the class-data archive (AppCDS, see pom.xml), not a user command:
 * the verbs whose start-up users wait for, in one JVM, so that the archive holds the classes
 * each one loads. {@code analyze} of a bundled example, then {@code evidence} and
 * {@code analyze} of a small SIMULATED msprof export written in the simulator's formats
 * ({@link MsprofFormat}) to a temporary folder, removed afterwards. An archive made from the
 * example alone left ~150 classes of an msprof read to be loaded from the jar at every run:
 * ~20 ms of a small {@code evidence} (0.11 s against 0.09 s, measured).
 */
public final class ArchiveTraining {

    private ArchiveTraining() {
    }

    /** @param args the example run directory to analyze */
    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("hbm-ledger-archive-");
        PrintStream stdout = System.out;
        try {
            Path export = dir.resolve("PROF_000001_20250109091803123_SIM").resolve("mindstudio_profiler_output");
            Files.createDirectories(export);
            write(export.resolve("npu_mem_20250109091803.csv"), MsprofFormat.NPU_MEM_HEADER, npuMemRows());
            write(export.resolve("npu_module_mem_20250109091803.csv"), MsprofFormat.NPU_MODULE_MEM_HEADER, moduleRows());
            System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
            // what Main.main does first for these verbs (run() below starts after it)
            io.hbmledger.evidence.msprof.MsprofReader.prepareInBackground();
            run("analyze", "--no-write", args[0]);
            run("evidence", "--format", "json", dir.toString());
            run("evidence", dir.toString());
            run("analyze", "--no-write", dir.toString());
        } finally {
            System.setOut(stdout);
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static void run(String... args) {
        int code = Main.newCommandLine(args).execute(args);
        if (code != 0) {
            throw new IllegalStateException("the archive's training run 'hbm-ledger " + String.join(" ", args)
                    + "' exited " + code + "; its messages are above");
        }
    }

    private static final long START_NS = 1_736_408_883_657_146_822L;
    private static final long PERIOD_NS = 20_000_000L; // 50 Hz, as --sys-hardware-mem-freq=50

    /** Two devices, each component a block of samples, as msprof writes the table. */
    private static List<String> moduleRows() {
        List<String> rows = new ArrayList<>();
        for (int device = 0; device < 2; device++) {
            for (String component : MsprofFormat.COMPONENTS.subList(0, 12)) {
                for (int i = 0; i < 400; i++) {
                    long bytes = (component.length() * 4096L + (i % 50) * 1024L) * 1024;
                    rows.add(MsprofFormat.moduleRow(device, component, bytes, START_NS + i * PERIOD_NS));
                }
            }
        }
        return rows;
    }

    private static List<String> npuMemRows() {
        List<String> rows = new ArrayList<>();
        for (int device = 0; device < 2; device++) {
            for (String event : List.of("app", "device")) {
                for (int i = 0; i < 400; i++) {
                    rows.add(MsprofFormat.npuMemRow(device, event, (30L << 30) + i * (1L << 20), START_NS + i * PERIOD_NS));
                }
            }
        }
        return rows;
    }

    private static void write(Path file, String header, List<String> rows) {
        StringBuilder sb = new StringBuilder(header).append('\n');
        rows.forEach(r -> sb.append(r).append('\n'));
        try {
            Files.writeString(file, sb, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
