package io.hbmledger.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Locates the worked user cases ({@code ../shared/cases/<case>/}, beside the corpus): evidence as
 * users pasted it into issues, with {@code case.md} holding the worked answers. Skipped with a
 * message where the shared folder is absent, failed under CI, as {@link Corpus} does.
 */
public final class Cases {

    private Cases() {
    }

    /** A file of a case, e.g. {@code file("ascend-8621-four-instances-one-910b2", "npu-smi.txt")}. */
    public static Path file(String caseName, String name) {
        Path p = Corpus.root().resolveSibling("cases").resolve(caseName).resolve(name);
        if (!Files.isRegularFile(p)) {
            throw new AssertionError("case file missing: " + p);
        }
        return p;
    }
}
