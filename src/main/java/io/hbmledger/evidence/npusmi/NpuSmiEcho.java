package io.hbmledger.evidence.npusmi;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An {@code npu-smi info} command line echoed before its output, as users paste it
 * ({@code $ npu-smi info -t usages -i 2 -c 0}, {@code [root@host ~]# npu-smi info -t proc-mem -i 0}).
 * The key / value views printed for one chip ({@code -c} given) carry no {@code NPU ID} or
 * {@code Chip ID} line: the echoed {@code -i} / {@code -c} are the only place their device is named.
 *
 * @param view the {@code -t} argument ({@code usages}, {@code memory}, {@code proc-mem}, ...), or null
 * @param npu the {@code -i} NPU id, or null when not given
 * @param chip the {@code -c} chip id, or null when not given
 */
public record NpuSmiEcho(String view, String npu, String chip) {

    /** {@code npu-smi info}, after a shell prompt or nothing, and its options up to the line's end. */
    private static final Pattern COMMAND = Pattern.compile("(?:^|[\\s$#>/])npu-smi\\s+info\\b(.*)$");
    private static final Pattern VIEW = Pattern.compile("\\s-t\\s+([A-Za-z-]+)");
    private static final Pattern NPU = Pattern.compile("\\s-i\\s+(\\d{1,9})\\b");
    private static final Pattern CHIP = Pattern.compile("\\s-c\\s+(\\d{1,9})\\b");

    /** The echoed command on a cleaned line, when the line is one. */
    public static Optional<NpuSmiEcho> of(String cleaned) {
        Matcher m = COMMAND.matcher(cleaned);
        if (!m.find()) {
            return Optional.empty();
        }
        String options = " " + m.group(1);
        return Optional.of(new NpuSmiEcho(group(VIEW, options), group(NPU, options), group(CHIP, options)));
    }

    private static String group(Pattern p, String s) {
        Matcher m = p.matcher(s);
        return m.find() ? m.group(1) : null;
    }
}
