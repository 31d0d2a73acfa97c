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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code nvidia-smi --query-gpu=... --format=csv} and
 * {@code --query-compute-apps=... --format=csv} output (with or without {@code nounits}),
 * read with FastCSV; nvidia-smi 4xx-5xx field names ({@code nvidia-smi --help-query-gpu}).
 *
 * <p>The header names the fields with their unit, e.g.
 * {@code index, memory.used [MiB], memory.total [MiB]}; values carry the unit
 * ({@code "103 MiB"}) unless {@code nounits} was given, then the header's unit applies. MiB
 * only: bytes = n x 1,048,576. {@code [N/A]}, {@code [Not Supported]} and similar are absent,
 * with a warning naming the row.
 *
 * <p>One file may hold several queries one after the other, each with its own header (what
 * {@code hbm-ledger collect} writes: {@code --query-gpu} then {@code --query-compute-apps}); a
 * header repeated by a sampling loop ({@code -l}, {@code -lms}) is skipped. Process rows, which
 * have no {@code index} field, get their GPU from {@code gpu_uuid} or {@code gpu_bus_id} matched
 * against the {@code uuid} / {@code pci.bus_id} of a GPU row read before them.
 *
 * <p>Quantities: {@code fb_used} ({@code memory.used}), {@code fb_total}
 * ({@code memory.total}), {@code fb_reserved} ({@code memory.reserved}) on {@code "gpu:<index>"};
 * {@code process_memory} ({@code used_memory} / {@code used_gpu_memory}) with {@code pid} and
 * {@code process_name}. {@code line} is the data row, headers excluded.
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
     * Parses CSV text whose first non-empty line is a header.
     *
     * @return observations in row order and warnings naming rows; never null
     */
    public static SmiParse parse(String text) {
        List<Observation> out = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        read(text, (r, fields) -> observe(r, fields, out, warnings), warnings);
        return new SmiParse(out, warnings);
    }

    /**
     * The rows of {@code --query-compute-apps} sections, also those whose memory nvidia-smi could not
     * report (MIG, WDDM: {@code [N/A]}): a process without a figure still holds its GPU.
     * collect uses them to tell whether GPUs are idle and when a stopped server released them.
     */
    public static List<NvidiaSmiProcess> processes(String text) {
        List<NvidiaSmiProcess> out = new ArrayList<>();
        read(text, (r, fields) -> {
            Long pid = r.pid(fields);
            if (pid != null) {
                Integer index = r.index(fields);
                Long bytes = null;
                int c = r.column("used_memory", "used_gpu_memory");
                if (c >= 0 && c < fields.size()) {
                    Matcher m = AMOUNT.matcher(fields.get(c));
                    if (m.matches() && m.group(1).length() <= 12) {
                        bytes = Long.parseLong(m.group(1)) * MIB;
                    }
                }
                out.add(new NvidiaSmiProcess(index, pid, r.processName(fields), bytes));
            }
        }, new ArrayList<>());
        return out;
    }

    /** What one data row sees: the current header, the GPUs seen so far, the row number. */
    private static final class Row {
        List<String> names;
        List<String> units;
        List<String> headerRaw;
        int row;
        boolean warnedNoIndex;
        final Map<String, String> indexByUuid = new HashMap<>();
        final Map<String, String> indexByBus = new HashMap<>();

        int column(String... candidates) {
            for (String c : candidates) {
                int i = names.indexOf(c);
                if (i >= 0) {
                    return i;
                }
            }
            return -1;
        }

        String cell(List<String> fields, String... names) {
            int c = column(names);
            return c >= 0 && c < fields.size() ? fields.get(c) : null;
        }

        Integer index(List<String> fields) {
            String index = cell(fields, "index");
            if (index == null) {
                String uuid = cell(fields, "gpu_uuid");
                String bus = cell(fields, "gpu_bus_id");
                index = uuid != null ? indexByUuid.get(uuid) : bus != null ? indexByBus.get(bus.toLowerCase(Locale.ROOT)) : null;
            }
            return index != null && INT.matcher(index).matches() ? Integer.valueOf(index) : null;
        }

        Long pid(List<String> fields) {
            String p = cell(fields, "pid");
            return p != null && PID.matcher(p).matches() ? Long.valueOf(p) : null;
        }

        String processName(List<String> fields) {
            String n = cell(fields, "process_name");
            return n != null && !n.isBlank() ? n : null;
        }
    }

    private interface RowSink {
        void row(Row r, List<String> fields);
    }

    private static void read(String text, RowSink sink, List<String> warnings) {
        Row r = new Row();
        try (CsvReader<CsvRecord> csv = CsvReader.builder().skipEmptyLines(true)
                .allowExtraFields(true).allowMissingFields(true).ofCsvRecord(text)) {
            for (CsvRecord rec : csv) {
                List<String> fields = rec.getFields().stream().map(String::strip).toList();
                if (r.names == null || (!fields.equals(r.headerRaw) && isHeader(fields))) {
                    header(r, fields);
                    continue;
                }
                if (fields.equals(r.headerRaw)) {
                    continue; // header repeated by a sampling loop
                }
                r.row++;
                Integer index = r.index(fields);
                String uuid = r.cell(fields, "uuid");
                String bus = r.cell(fields, "pci.bus_id");
                if (index != null && uuid != null) {
                    r.indexByUuid.put(uuid, index.toString());
                }
                if (index != null && bus != null) {
                    r.indexByBus.put(bus.toLowerCase(Locale.ROOT), index.toString());
                }
                sink.row(r, fields);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a String does not do I/O
        }
    }

    private static void header(Row r, List<String> fields) {
        r.headerRaw = fields;
        r.names = new ArrayList<>();
        r.units = new ArrayList<>();
        for (String f : fields) {
            Matcher m = FIELD.matcher(f);
            r.names.add((m.matches() ? m.group(1) : f).toLowerCase(Locale.ROOT));
            r.units.add(m.matches() ? m.group(2) : null);
        }
    }

    private static void observe(Row r, List<String> fields, List<Observation> out, List<String> warnings) {
        int row = r.row;
        Integer index = r.index(fields);
        String device = index == null ? null : "gpu:" + index;
        if (device == null && !r.warnedNoIndex) {
            r.warnedNoIndex = true;
            warnings.add("row " + row + ": no GPU index (add 'index' to --query-gpu, or gpu_uuid to --query-compute-apps"
                    + " after a --query-gpu with uuid); observations carry no device");
        }
        Long pid = r.pid(fields);
        String processName = r.processName(fields);
        for (int c = 0; c < r.names.size(); c++) {
            Quantity quantity = switch (r.names.get(c)) {
                case "memory.used" -> Quantity.FB_USED;
                case "memory.total" -> Quantity.FB_TOTAL;
                case "memory.reserved" -> Quantity.FB_RESERVED;
                case "used_memory", "used_gpu_memory" -> Quantity.PROCESS_MEMORY;
                default -> null;
            };
            if (quantity == null) {
                continue;
            }
            if (c >= fields.size()) {
                warnings.add("row " + row + ": the row ends before " + r.names.get(c) + " (cut off?); left absent");
                continue;
            }
            String value = fields.get(c);
            Matcher m = AMOUNT.matcher(value);
            String unit = m.matches() && m.group(2) != null ? m.group(2) : r.units.get(c);
            if (!m.matches() || !"MiB".equals(unit) || m.group(1).length() > 12) {
                warnings.add("row " + row + ": " + r.names.get(c) + " " + Quote.of(value) + " is not a MiB amount"
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

    /** A line of nvidia-smi field names with at least one memory field. */
    private static boolean isHeader(List<String> fields) {
        boolean memory = false;
        for (String f : fields) {
            Matcher m = FIELD.matcher(f.strip());
            if (!m.matches()) {
                return false;
            }
            memory |= m.group(1).toLowerCase(Locale.ROOT).matches("memory\\.(used|total|reserved)|used_memory|used_gpu_memory");
        }
        return memory;
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
            List<String> fields = new ArrayList<>();
            for (String f : s.split(",", -1)) {
                fields.add(f.strip());
            }
            return isHeader(fields);
        }
        return false;
    }
}
