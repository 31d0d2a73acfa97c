package io.hbmledger.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * One scratch directory per fuzz test class (inputs are written there, one at a time), and
 * the seeds of fuzzing mode: the corpus files of a kind, read in place from ../shared/corpus and
 * copied into Jazzer's generated-corpus folder (.cifuzz-corpus, ignored by git) at test time.
 */
public final class FuzzFiles {

    private FuzzFiles() {
    }

    public static Path scratch(String prefix) {
        try {
            Path dir = Files.createTempDirectory("hbm-fuzz-" + prefix);
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether Jazzer fuzzes in this run (JAZZER_FUZZ set), as opposed to regression mode. */
    public static boolean fuzzing() {
        String v = System.getenv("JAZZER_FUZZ");
        return v != null && !v.isEmpty() && !v.equals("0") && !v.equalsIgnoreCase("false");
    }

    /**
     * In fuzzing mode, seeds Jazzer's corpus for {@code testClass#method} with the corpus files
     * under {@code kind} whose names end with one of {@code suffixes}; does nothing in
     * regression mode or without ../shared/corpus.
     */
    public static void seed(Class<?> testClass, String method, String kind, List<String> suffixes) {
        if (!fuzzing()) {
            return;
        }
        Path source = Path.of(System.getProperty("hbm.corpus", "../shared/corpus"), kind);
        if (!Files.isDirectory(source)) {
            System.err.println("fuzz seeds: no corpus at " + source + "; fuzzing from the resource inputs only");
            return;
        }
        Path target = Path.of(".cifuzz-corpus", testClass.getName(), method);
        try (Stream<Path> files = Files.list(source)) {
            Files.createDirectories(target);
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (suffixes.stream().anyMatch(n::endsWith) && Files.size(f) <= 2 << 20) {
                    Files.copy(f, target.resolve("seed-" + n), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
