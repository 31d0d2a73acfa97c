package io.hbmledger.evidence.nvidiasmi;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rows of nvidia-smi's {@code Processes} table pasted without its header, as people quote the
 * process that holds a GPU: {@code |    0   N/A  N/A   2230356      C   python3    76038MiB |}
 * (drivers that print {@code GPU GI CI PID Type Process name GPU Memory}, 470 on, as under the
 * localgpt #14 header of the corpus) or {@code |    0      2230356      C   python3    76038MiB |}
 * (older drivers, {@code GPU PID Type Process name GPU Memory}). One reading only: a GPU index,
 * GI and CI ({@code N/A} or ids), a pid, a type among nvidia-smi's ({@code C}, {@code G},
 * {@code C+G}, {@code M}, {@code M+C}), a name and a whole number of MiB, in one cell. Read as
 * {@code process_memory} of {@code gpu:<index>}, inferred: the header that says so is missing.
 * A row whose memory is {@code N/A} (Windows WDDM) gives nothing. Collects the rows of one text.
 */
final class NvidiaSmiHeaderlessProcesses {

    private static final String TYPE = "(?:C\\+G|M\\+C|C|G|M)";
    private static final Pattern WITH_GI = Pattern.compile(
            "^\\|\\s*(\\d{1,3})\\s+(?:N/A|\\d{1,3})\\s+(?:N/A|\\d{1,3})\\s+(\\d{1,18})\\s+" + TYPE + "\\s+(\\S.*?)\\s+(\\d{1,9})MiB\\s*\\|$");
    private static final Pattern PLAIN = Pattern.compile(
            "^\\|\\s*(\\d{1,3})\\s+(\\d{1,18})\\s+" + TYPE + "\\s+(\\S.*?)\\s+(\\d{1,9})MiB\\s*\\|$");

    private final List<Integer> lines = new ArrayList<>();

    /** True for a cleaned line that is an nvidia-smi process row in one of the two layouts. */
    static boolean isRow(String cleaned) {
        return match(cleaned).isPresent();
    }

    /** The row's process memory, inferred, or empty for a line that is not such a row; the line is kept for {@link #warning()}. */
    Optional<Observation> read(int line, String cleaned) {
        Optional<Matcher> m = match(cleaned);
        if (m.isEmpty()) {
            return Optional.empty();
        }
        lines.add(line);
        Matcher r = m.get();
        String name = r.group(3).strip();
        Context at = Context.builder().device("gpu:" + r.group(1)).pid(Long.valueOf(r.group(2)))
                .processName(name).inferred(true).build();
        return Optional.of(Observation.bytes(Quantity.PROCESS_MEMORY, Long.parseLong(r.group(4)) << 20, line,
                r.group(4) + "MiB").in(at));
    }

    /** The one warning naming the rows read without their header, once any was. */
    Optional<String> warning() {
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("line " + lines.get(0) + ": nvidia-smi process rows without their 'Processes:' header (line"
                + (lines.size() > 1 ? "s " : " ") + String.join(", ", lines.stream().map(String::valueOf).toList())
                + "): read in the layout nvidia-smi prints, 'GPU [GI CI] PID Type Process name GPU Memory';"
                + " their values are inferred");
    }

    private static Optional<Matcher> match(String cleaned) {
        for (Pattern p : List.of(WITH_GI, PLAIN)) {
            Matcher m = p.matcher(cleaned);
            if (m.matches()) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
