package io.hbmledger.evidence.npusmi;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.Quote;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the key / value output of {@code npu-smi info -t usages -i <NPU id> [-c <chip id>]}
 * (and the memory keys of {@code -t memory}), Ascend driver tool 20.x to 25.x.
 *
 * <p>Layout per the tool's print code ({@code print_chip_usages_info}): {@code NPU ID : n},
 * {@code Chip Count : k}, then per chip {@code Chip ID : c} followed by lines such as
 * {@code HBM Capacity(MB) : 65536}, {@code HBM Usage Rate(%) : 5},
 * {@code DDR Capacity(MB)} / {@code DDR Usage Rate(%)} (910, 310P) or
 * {@code Memory Capacity(MB)} / {@code Memory Usage Rate(%)} (310, 310B such as Atlas 200I A2).
 *
 * <p>Quantities: {@code hbm_capacity}, {@code memory_capacity} (bytes; MB means MiB, so
 * x 1,048,576) and {@code hbm_usage_rate}, {@code memory_usage_rate} ({@code value} in percent).
 * The device is {@code "npu:<NPU ID>/chip:<Chip ID>"}; views of one chip ({@code -c} given) and
 * {@code -t memory} print no {@code NPU ID}, so the ids of an echoed command line
 * ({@link NpuSmiEcho}) are used, and without one the device is unknown (absent). A DDR capacity of 0 is the tool's
 * placeholder on 910B / Atlas A3, which have no DDR: neither it nor its rate is reported.
 * Never throws on content; unreadable values become warnings naming the line.
 */
public final class NpuSmiUsagesParser {

    public static final EvidenceFormat FORMAT = EvidenceFormat.NPU_SMI_USAGES;

    private static final long MIB = 1L << 20;
    static final Pattern KEY_VALUE = Pattern.compile("^([A-Za-z][A-Za-z0-9 ()%/._-]*?)\\s*:\\s*(.*)$");
    private static final Pattern INT = Pattern.compile("\\d{1,9}");
    /** A MiB count that still fits a long once in bytes. */
    private static final Pattern MIB_COUNT = Pattern.compile("\\d{1,12}");
    private static final Pattern DECIMAL = Pattern.compile("\\d{1,6}(\\.\\d{1,6})?");

    private NpuSmiUsagesParser() {
    }

    /** Parses usages text (as read, any line endings). */
    public static SmiParse parse(String text) {
        return parse(SmiLines.lines(text));
    }

    /**
     * Parses usages output given as lines; index i is line i+1.
     *
     * @return observations in line order and warnings naming lines; never null
     */
    public static SmiParse parse(List<String> lines) {
        List<Observation> out = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        String npu = null;
        String chip = null;
        Integer chipCount = null;
        boolean noDdr = false;
        boolean warnedNoChip = false;
        for (int i = 0; i < lines.size(); i++) {
            int line = i + 1;
            String cleaned = SmiLines.clean(lines.get(i));
            java.util.Optional<NpuSmiEcho> echo = NpuSmiEcho.of(cleaned);
            if (echo.isPresent()) {
                // a new command: its -i / -c name the device of the values that follow
                npu = echo.get().npu();
                chip = echo.get().chip();
                chipCount = null;
                noDdr = false;
                continue;
            }
            Matcher m = KEY_VALUE.matcher(cleaned);
            if (!m.matches()) {
                continue;
            }
            String key = m.group(1).strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
            String value = m.group(2).strip();
            switch (key) {
                case "npu id" -> {
                    npu = INT.matcher(value).matches() ? value : null;
                    chip = null;
                    chipCount = null;
                    noDdr = false;
                    if (npu == null) {
                        warnings.add("line " + line + ": NPU ID " + Quote.of(value) + " is not a number; values until the next NPU ID have no device");
                    }
                    continue;
                }
                case "chip count" -> {
                    chipCount = INT.matcher(value).matches() ? Integer.valueOf(value) : null;
                    continue;
                }
                case "chip id" -> {
                    chip = INT.matcher(value).matches() ? value : null;
                    noDdr = false;
                    continue;
                }
                default -> {
                }
            }
            Quantity quantity = switch (key) {
                case "hbm capacity(mb)" -> Quantity.HBM_CAPACITY;
                case "hbm usage rate(%)" -> Quantity.HBM_USAGE_RATE;
                case "ddr capacity(mb)", "memory capacity(mb)" -> Quantity.MEMORY_CAPACITY;
                case "ddr usage rate(%)", "memory usage rate(%)" -> Quantity.MEMORY_USAGE_RATE;
                default -> null;
            };
            if (quantity == null) {
                continue;
            }
            String device = null;
            if (npu != null) {
                // Without a 'Chip ID' line a one-chip NPU's chip is 0; with several chips it is unknown.
                String c = chip != null ? chip : (chipCount != null && chipCount == 1 ? "0" : null);
                if (c != null) {
                    device = "npu:" + npu + "/chip:" + c;
                }
            }
            if (quantity == Quantity.MEMORY_CAPACITY && value.equals("0")) {
                noDdr = true; // placeholder of chips without DDR (print_chip_memory_usages_info)
                continue;
            }
            if (quantity == Quantity.MEMORY_USAGE_RATE && noDdr) {
                continue;
            }
            if (device == null && !warnedNoChip) {
                warnedNoChip = true;
                warnings.add("line " + line + ": no 'NPU ID' / 'Chip ID' line and no echoed 'npu-smi info ... -i N -c M'"
                        + " before this value, so its device is unknown; observations carry no device (paste the"
                        + " command line with the output to name it)");
            }
            boolean isBytes = quantity == Quantity.HBM_CAPACITY || quantity == Quantity.MEMORY_CAPACITY;
            if (isBytes ? !MIB_COUNT.matcher(value).matches() : !DECIMAL.matcher(value).matches()) {
                if (!value.equalsIgnoreCase("NA") && !value.equals("-") && !value.equalsIgnoreCase("N/A")) {
                    warnings.add("line " + line + ": " + m.group(1).strip() + " " + Quote.of(value) + " is not a number; left absent");
                }
                continue;
            }
            Observation o = isBytes
                    ? Observation.bytes(quantity, Long.parseLong(value) * MIB, line, value)
                    : Observation.value(quantity, Double.parseDouble(value), line, value);
            out.add(o.in(Context.device(device)));
        }
        return new SmiParse(out, warnings);
    }

    /**
     * True when the text holds a usages or {@code -t memory} memory key as a whole line
     * ({@code HBM Capacity(MB) : 32768}). The {@code NPU ID} line is not needed: the views of one
     * chip ({@code -i 2 -c 0}) and {@code -t memory} print none.
     */
    static boolean looksLikeUsages(List<String> cleanedLines) {
        for (String s : cleanedLines) {
            Matcher m = KEY_VALUE.matcher(s);
            if (m.matches() && m.group(1).strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT)
                    .matches("(hbm|ddr|memory) (capacity\\(mb\\)|usage rate\\(%\\))")) {
                return true;
            }
        }
        return false;
    }
}
