package io.hbmledger.evidence.nvidiasmi;

import de.siegmar.fastcsv.reader.CsvReader;
import de.siegmar.fastcsv.reader.CsvRecord;
import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.Quote;
import io.hbmledger.evidence.smitable.SmiParse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code nvidia-smi --query-gpu=... --format=csv} and
 * {@code --query-compute-apps=... --format=csv} output (with or without {@code nounits}),
 * read with FastCSV.
 *
 * <p>The header names the fields with their unit, e.g.
 * {@code index, memory.used [MiB], memory.total [MiB]}; values carry the unit
 * ({@code "103 MiB"}) unless {@code nounits} was given, then the header's unit applies. MiB
 * only: bytes = n x 1,048,576. {@code [N/A]}, {@code [Not Supported]} and similar are absent,
 * with a warning naming the row.
 *
 * <p>Quantities: {@code fb_used} ({@code memory.used}), {@code fb_total}
 * ({@code memory.total}) on {@code "gpu:<index>"} when an {@code index} column is present;
 * {@code process_memory} ({@code used_memory} / {@code used_gpu_memory}) with {@code pid} and
 * {@code process_name}. {@code line} is the data row, header excluded.
 */
public final class NvidiaSmiCsvParser {

    public static final EvidenceFormat FORMAT = EvidenceFormat.NVIDIA_SMI_CSV;

    private static final long MIB = 1L << 20;
    private static final Pattern FIELD = Pattern.compile("^([a-z_][a-z0-9_.]*)\\s*(?:\\[([^\\]]*)\\])?$", Pattern.CASE_INSENSITIVE);
    private static final Pattern AMOUNT = Pattern.compile("^(\\d+)\\s*(MiB)?$");
    private static final Pattern INT = Pattern.compile("\\d{1,9}");
    private static final Pattern PID = Pattern.compile("\\d{1,18}");

    private NvidiaSmiCsvParser() {
    }

    /**
     * Parses CSV text whose first non-empty line is the header.
     *
     * @return observations in row order and warnings naming rows; never null
     */
    public static SmiParse parse(String text) {
        List<Observation> out = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<String> names = null;
        List<String> units = null;
        List<String> headerRaw = null;
        int row = 0;
        boolean warnedNoIndex = false;
        try (CsvReader<CsvRecord> csv = CsvReader.builder().skipEmptyLines(true)
                .allowExtraFields(true).allowMissingFields(true).ofCsvRecord(text)) {
            for (CsvRecord rec : csv) {
                List<String> fields = rec.getFields().stream().map(String::strip).toList();
                if (names == null) {
                    headerRaw = fields;
                    names = new ArrayList<>();
                    units = new ArrayList<>();
                    for (String f : fields) {
                        Matcher m = FIELD.matcher(f);
                        names.add((m.matches() ? m.group(1) : f).toLowerCase(Locale.ROOT));
                        units.add(m.matches() ? m.group(2) : null);
                    }
                    continue;
                }
                if (fields.equals(headerRaw)) {
                    continue; // header repeated by a sampling loop
                }
                row++;
                String device = null;
                int index = names.indexOf("index");
                if (index >= 0 && index < fields.size() && INT.matcher(fields.get(index)).matches()) {
                    device = "gpu:" + fields.get(index);
                } else if (!warnedNoIndex) {
                    warnedNoIndex = true;
                    warnings.add("row " + row + ": no GPU index (add 'index' to --query-gpu); observations carry no device");
                }
                Long pid = null;
                int pidAt = names.indexOf("pid");
                if (pidAt >= 0 && pidAt < fields.size() && PID.matcher(fields.get(pidAt)).matches()) {
                    pid = Long.valueOf(fields.get(pidAt));
                }
                int nameAt = names.indexOf("process_name");
                String processName = nameAt >= 0 && nameAt < fields.size() && !fields.get(nameAt).isBlank()
                        ? fields.get(nameAt) : null;
                for (int c = 0; c < names.size(); c++) {
                    Quantity quantity = switch (names.get(c)) {
                        case "memory.used" -> Quantity.FB_USED;
                        case "memory.total" -> Quantity.FB_TOTAL;
                        case "used_memory", "used_gpu_memory" -> Quantity.PROCESS_MEMORY;
                        default -> null;
                    };
                    if (quantity == null) {
                        continue;
                    }
                    if (c >= fields.size()) {
                        warnings.add("row " + row + ": the row ends before " + names.get(c) + " (cut off?); left absent");
                        continue;
                    }
                    String value = fields.get(c);
                    Matcher m = AMOUNT.matcher(value);
                    String unit = m.matches() && m.group(2) != null ? m.group(2) : units.get(c);
                    if (!m.matches() || !"MiB".equals(unit) || m.group(1).length() > 12) {
                        warnings.add("row " + row + ": " + names.get(c) + " " + Quote.of(value) + " is not a MiB amount"
                                + (value.contains("N/A") || value.startsWith("[") ? " (nvidia-smi could not report it)" : "")
                                + "; left absent");
                        continue;
                    }
                    Context at = quantity == Quantity.PROCESS_MEMORY
                            ? Context.builder().device(device).pid(pid).processName(processName).build()
                            : Context.device(device);
                    out.add(Observation.bytes(quantity, Long.parseLong(m.group(1)) * MIB, row, value).in(at));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a String does not do I/O
        }
        return new SmiParse(out, warnings);
    }

    /** True when the first non-blank line is an nvidia-smi query header with a memory field. */
    static boolean looksLikeCsv(String text) {
        for (String line : text.split("\n", -1)) {
            String s = line.replace("\r", "").strip();
            if (s.startsWith("\uFEFF")) {
                s = s.substring(1);
            }
            if (s.isEmpty()) {
                continue;
            }
            boolean memory = false;
            for (String f : s.split(",", -1)) {
                Matcher m = FIELD.matcher(f.strip());
                if (!m.matches()) {
                    return false;
                }
                memory |= m.group(1).toLowerCase(Locale.ROOT).matches("memory\\.(used|total)|used_memory|used_gpu_memory");
            }
            return memory;
        }
        return false;
    }
}
