package io.hbmledger.evidence.safetensors;

import io.hbmledger.evidence.TextLines;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Git LFS pointer files: what a clone without {@code git lfs} leaves where the weights should
 * be. Format (git-lfs {@code docs/spec.md}, v1): {@code version https://git-lfs.github.com/spec/v1},
 * {@code oid sha256:<hex>}, {@code size <bytes>}, one key per line. Several pointers may be
 * concatenated, as {@code head} prints them ({@code ==> name <==} before each).
 */
public final class LfsPointers {

    /** The spec URL that starts every pointer. */
    public static final String VERSION_PREFIX = "version https://git-lfs.github.com/spec/";

    private static final Pattern SIZE = Pattern.compile("^size (\\d+)\\s*$");
    private static final Pattern NAME = Pattern.compile("^==> (.*) <==\\s*$");

    /**
     * One pointer.
     *
     * @param name the file name from a preceding {@code ==> name <==} line, or null
     * @param size the object's size in bytes
     * @param line 1-based line of the {@code size} key
     * @param text the size as written
     */
    public record Pointer(String name, long size, int line, String text) {
    }

    private LfsPointers() {
    }

    /** Every pointer in the text, in order. Pure. */
    public static List<Pointer> parse(String text) {
        List<String> lines = TextLines.split(text);
        List<Pointer> out = new ArrayList<>();
        String name = null;
        boolean inPointer = false;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            Matcher nm = NAME.matcher(l);
            if (nm.matches()) {
                name = nm.group(1);
                inPointer = false;
                continue;
            }
            if (l.startsWith(VERSION_PREFIX)) {
                inPointer = true;
                continue;
            }
            Matcher sm = SIZE.matcher(l);
            // more than 18 digits is not a file size (git-lfs writes an int64); such a pointer is left out
            if (inPointer && sm.matches() && sm.group(1).length() <= 18) {
                out.add(new Pointer(name, Long.parseLong(sm.group(1)), i + 1, sm.group(1)));
                inPointer = false;
                name = null;
            }
        }
        return out;
    }
}
