package io.hbmledger.evidence.vllmlog;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file of a worked case in {@code ../shared/cases} (real reports with their evidence), read in
 * place. Absent cases skip the test with a message, as {@link io.hbmledger.testing.Corpus} does;
 * under {@code CI=true} their absence fails it.
 */
final class SharedCase {

    private SharedCase() {
    }

    static Path file(String caseName, String fileName) {
        Path root = Path.of(System.getProperty("hbm.cases", "../shared/cases")).toAbsolutePath().normalize();
        Path p = root.resolve(caseName).resolve(fileName);
        boolean present = Files.isRegularFile(p);
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI=true but the shared case file is missing at " + p);
        }
        assumeTrue(present, "shared case not found at " + p + "; case tests skipped");
        return p;
    }
}
