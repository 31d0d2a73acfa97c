package io.hbmledger.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Locates the shared real-input corpus ({@code ../shared/corpus}). On a user's fresh clone it
 * is absent and corpus tests are skipped with a message; under CI ({@code CI=true}) its absence
 * fails the test, so a green CI always means the real inputs were checked.
 */
public final class Corpus {

    private Corpus() {
    }

    public static Path root() {
        Path root = Path.of(System.getProperty("hbm.corpus", "../shared/corpus")).toAbsolutePath().normalize();
        boolean present = Files.isRegularFile(root.resolve("truth.json"));
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI=true but the real-input corpus is missing at " + root
                    + " (expected ../shared/corpus beside the project)");
        }
        assumeTrue(present, "real-input corpus not found at " + root
                + "; corpus tests skipped (they run where ../shared/corpus exists)");
        return root;
    }

    /** A corpus file, e.g. {@code file("npu-smi/x.txt")}; skips or fails as {@link #root()}. */
    public static Path file(String relative) {
        Path p = root().resolve(relative);
        if (!Files.isRegularFile(p)) {
            throw new AssertionError("corpus file missing: " + p);
        }
        return p;
    }
}
