package io.hbmledger.evidence.npusmi;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.Quote;
import io.hbmledger.evidence.smitable.SmiLines.Row;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the tables printed by {@code npu-smi info} (Ascend driver tool, versions 20.x to
 * 25.x): the chip table and the process table.
 *
 * <p>Layouts follow the tool's own print code (CANN {@code npu_info_print.c}:
 * {@code print_total_info_with_HBM} for 910 / 910B / Atlas A3, {@code print_total_info} for
 * 310 / 310P / 310B): each chip is two rows between borders. Row 1 is
 * {@code NPU id, Name | Health | Power, Temp, Hugepages-Usage}; row 2 is
 * {@code Chip id [Phy-ID | Device] | Bus-Id | AICore, Memory-Usage [, HBM-Usage]}. Columns are
 * found from the header, never from fixed positions, so wider ids, shifted borders and extra
 * columns of newer drivers are read too. Device row pairs pasted without any header are read in
 * the layout npu-smi prints for chips with HBM when their shape is that one ({@link NpuSmiDeviceRows});
 * their observations are marked {@link Context#inferred() inferred} and a warning names the rows.
 *
 * <p>Units: {@code HBM-Usage(MB)}, {@code Memory-Usage(MB)} and {@code Process memory(MB)} are
 * MiB (the tool divides bytes by 1024 twice); observations carry bytes = MiB x 1,048,576.
 * Quantities: {@code hbm_used}, {@code hbm_total}, {@code memory_used}, {@code memory_total}
 * (the DDR column), {@code process_memory} (with {@code pid}, {@code process_name}). Devices
 * are {@code "npu:<NPU id>/chip:<Chip id>"}; {@code device_id} is the Phy-ID (Atlas A3) or
 * logical Device id (310P) when the header shows one.
 *
 * <p>Never throws on content: rows that cannot be read become warnings naming the line, and
 * the rest of the table is still read. Values written as {@code NA} or {@code -} are absent.
 */
public final class NpuSmiInfoParser {

    public static final EvidenceFormat FORMAT = EvidenceFormat.NPU_SMI_INFO;

    private static final long MIB = 1L << 20;
    private static final Pattern NO_PROCESS = Pattern.compile("(?i)^no running processes found in npu\\s+(\\d+)");
    /** Ids (NPU, chip, Phy-ID) fit an int. */
    static final Pattern INT = Pattern.compile("\\d{1,9}");
    /** A MiB count that still fits a long once in bytes (2^63 / 2^20 = 2^43, about 8.8e12). */
    private static final Pattern MIB_COUNT = Pattern.compile("\\d{1,12}");
    private static final Pattern PID = Pattern.compile("\\d{1,18}");
    static final Pattern PAIR_GAP = Pattern.compile("\\s*/\\s*");
    private static final Pattern UNIT = Pattern.compile("\\(([^)]*)\\)\\s*$");

    private enum Mode { NONE, CHIP_HEADER, CHIPS, PROC_HEADER, PROCS }

    private final List<Observation> out = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Map<String, Integer> deviceIds = new HashMap<>();
    // The chips each NPU's usage rows named, in first-seen order, kept up to date from {@code out}
    // (observations [0, chipsIndexed) are in it). Was a scan of every observation per "No running
    // processes" line: quadratic, 21 s of CPU on a 6 MB file of 800 tables (issue 14).
    private final Map<String, java.util.Set<String>> chipsByNpu = new HashMap<>();
    private int chipsIndexed;
    private final List<NpuSmiProcess> processes = new ArrayList<>();

    private Mode mode = Mode.NONE;
    private final List<Row> chipHeader = new ArrayList<>();
    private Row procHeader;
    /** The kind of table body read last before a break, to resume after it. */
    private Mode lastBody = Mode.NONE;
    private Row pendingRow1;
    private int pendingLine;
    /**
     * Blank lines came after a chip's first row: its pair goes on when the next line is the chip's
     * second row (ids, then a bus id), else the table ended there.
     */
    private boolean gapInPair;
    private boolean warnedHeaderless;
    /** A first row of a device pair seen without a header, until the next row says whether its pair follows. */
    private Row headerlessRow1;
    private int headerlessLine;
    /** True once device pairs were read with {@link NpuSmiDeviceRows#standInHeader} standing in for a missing header. */
    private boolean layoutInferred;
    private String inferredChip;
    /** The line ranges ("8-9") of the pairs read that way, for the one warning that names them. */
    private final List<String> inferredPairs = new ArrayList<>();
    private int inferredFirstLine;
    /** The line ranges of headerless pairs with one 'used / total' pair (310P), named in one warning. */
    private final List<String> onePairRows = new ArrayList<>();
    private int onePairFirstLine;
    private String onePairChip;
    private int onePairCount;
    /** The lines of process rows read without their header ({@link NpuSmiDeviceRows#PROCESS_HEADER} standing in). */
    private final List<String> inferredProcRows = new ArrayList<>();

    private NpuSmiInfoParser() {
    }

    /** Parses {@code npu-smi info} text (as read, any line endings). */
    public static SmiParse parse(String text) {
        return parse(SmiLines.lines(text));
    }

    /**
     * The process rows of {@code npu-smi info} text, with the logical device each one is on; empty
     * when the table shows "No running processes found" for every NPU. Rows the parser cannot read
     * (see the warnings of {@link #parse(String)}) are left out.
     */
    public static List<NpuSmiProcess> processes(String text) {
        NpuSmiInfoParser p = run(SmiLines.lines(text));
        return List.copyOf(p.processes);
    }

    /**
     * Parses {@code npu-smi info} output given as lines; index i is line i+1.
     *
     * @return observations in line order and warnings naming lines; never null
     */
    public static SmiParse parse(List<String> lines) {
        NpuSmiInfoParser p = run(lines);
        return new SmiParse(p.out, p.warnings);
    }

    private static NpuSmiInfoParser run(List<String> lines) {
        NpuSmiInfoParser p = new NpuSmiInfoParser();
        for (int i = 0; i < lines.size(); i++) {
            p.accept(i + 1, SmiLines.clean(lines.get(i)));
        }
        p.endOfTable();
        p.endInferred();
        p.endInferredProcesses();
        p.endOnePair();
        return p;
    }

    private void accept(int line, String s) {
        if (s.isEmpty() && halfPair()) {
            // markdown puts blank lines (or blank "> " quote lines) into pasted tables; whether the
            // pair is broken is told by the next line
            gapInPair = true;
            return;
        }
        if (gapInPair) {
            gapInPair = false;
            if (!(SmiLines.isRow(s) && NpuSmiDeviceRows.chipRowPairs(SmiLines.row(s)) >= 0)) {
                endOfTable();
            }
        }
        if (s.isEmpty() || !(s.startsWith("|") || s.startsWith("+"))) {
            if (mode != Mode.NONE || headerlessRow1 != null) {
                endOfTable();
            }
            return;
        }
        if (SmiLines.isSeparator(s)) {
            separator(line);
            return;
        }
        Row row = SmiLines.row(s);
        List<String> first = SmiLines.tokens(row.cells().get(0));
        if (startsWith(first, "NPU", "Name")) {
            flushPending();
            endInferred();
            chipHeader.clear();
            chipHeader.add(row);
            mode = Mode.CHIP_HEADER;
            return;
        }
        if (startsWith(first, "NPU", "Chip") && row.cells().stream().anyMatch(c -> c.toLowerCase(Locale.ROOT).startsWith("process"))) {
            flushPending();
            procHeader = row;
            mode = Mode.PROC_HEADER;
            return;
        }
        if (mode != Mode.CHIP_HEADER && !first.isEmpty() && first.get(0).equalsIgnoreCase("Chip")
                && row.cells().size() > 1 && row.cells().get(1).startsWith("Bus-Id")) {
            // A paste that starts at the second header row (seen in vllm-ascend issue 1903): its
            // memory columns are known; the first row only contributes the NPU id, which is
            // always the first token of a chip's first row.
            flushPending();
            endInferred();
            chipHeader.clear();
            chipHeader.add(new Row(List.of(""), true));
            chipHeader.add(row);
            mode = Mode.CHIP_HEADER;
            warnings.add("line " + line + ": the table starts at its second header row ('Chip | Bus-Id ...');"
                    + " the first header row is missing, so only the NPU id is read from each chip's first row");
            return;
        }
        switch (mode) {
            case CHIP_HEADER -> chipHeader.add(row);
            case CHIPS -> chipRow(line, row);
            case PROCS, PROC_HEADER -> processRow(line, row, procHeader, false);
            case NONE -> {
                if (headerlessRow1 != null) {
                    headerlessPair(line, row, first);
                } else if (!resume(line, row, first)) {
                    headerlessStart(line, row, first);
                }
            }
        }
    }

    /** True between the first and second row of a chip's pair, under a header or without one. */
    private boolean halfPair() {
        return mode == Mode.CHIPS && pendingRow1 != null || mode == Mode.NONE && headerlessRow1 != null;
    }

    private void separator(int line) {
        switch (mode) {
            case CHIP_HEADER -> {
                mode = Mode.CHIPS;
                boolean noMemoryColumns = chipHeader.stream().mapToInt(NpuSmiInfoParser::memoryColumns).sum() == 0;
                if (chipHeader.size() < 2 || noMemoryColumns) {
                    warnings.add("line " + line + ": the npu-smi header has no 'Memory-Usage(MB)' or 'HBM-Usage(MB)'"
                            + " column (second header row missing?); chip memory cannot be read");
                }
            }
            case PROC_HEADER -> mode = Mode.PROCS;
            case CHIPS -> flushPending();
            default -> dropHeaderlessRow1();
        }
    }

    private void endOfTable() {
        flushPending();
        dropHeaderlessRow1();
        if (mode == Mode.CHIPS || mode == Mode.PROCS) {
            lastBody = mode;
        }
        mode = Mode.NONE;
    }

    /**
     * Rows after a break (a blank line, text, or a new frame's border) with no header of their
     * own: excerpts pasted one after another, or a long table a terminal or an issue split. When
     * the row has as many cells as the last header of a table already read, that header is
     * reused, with a warning; the table whose body came last is tried first.
     */
    private boolean resume(int line, Row row, List<String> first) {
        if (layoutInferred || first.isEmpty() || !INT.matcher(first.get(0)).matches()) {
            return false;
        }
        int cells = row.cells().size();
        boolean chipFits = chipHeader.size() >= 2 && chipHeader.get(chipHeader.size() - 1).cells().size() == cells;
        boolean procFits = procHeader != null && procHeader.cells().size() == cells
                && first.size() >= 2 && INT.matcher(first.get(1)).matches();
        Mode resumed = lastBody == Mode.PROCS && procFits ? Mode.PROCS
                : chipFits ? Mode.CHIPS : procFits ? Mode.PROCS : null;
        if (resumed == null) {
            return false;
        }
        mode = resumed;
        warnings.add("line " + line + ": table rows after a break (blank line, text or a new frame) without their own"
                + " header; read with the " + (resumed == Mode.CHIPS ? "chip" : "process")
                + " table header above, whose cell layout they match");
        if (resumed == Mode.CHIPS) {
            chipRow(line, row);
        } else {
            processRow(line, row, procHeader, false);
        }
        return true;
    }

    private void headerless(int line, List<String> first) {
        if (!warnedHeaderless && !first.isEmpty() && INT.matcher(first.get(0)).matches()) {
            warnedHeaderless = true;
            warnings.add("line " + line + ": npu-smi table rows without their 'NPU  Name | Health' header;"
                    + " columns are unknown, so these rows were not read (paste the table with its header)");
        }
    }

    /** A row in no table: kept when it can start a device row pair, else the rows are not read (warning). */
    private void headerlessStart(int line, Row row, List<String> first) {
        if (NpuSmiDeviceRows.isFirstRow(row)) {
            headerlessRow1 = row;
            headerlessLine = line;
        } else if (NpuSmiDeviceRows.isProcessRow(row)) {
            // mode stays NONE: each further row must show this shape again to be read so
            inferredProcRows.add(String.valueOf(line));
            processRow(line, row, NpuSmiDeviceRows.PROCESS_HEADER, true);
        } else {
            headerless(line, first);
        }
    }

    /**
     * The row after a headerless first row. A device pair (see {@link NpuSmiDeviceRows}) whose chip
     * row holds two "used / total" pairs is read in the layout npu-smi prints for chips with HBM,
     * which then stands in for the header until a real one comes; with one pair (310P: DDR
     * Memory-Usage only) which column it is cannot be told, so nothing is read.
     */
    private void headerlessPair(int line, Row row, List<String> first) {
        Row row1 = headerlessRow1;
        int line1 = headerlessLine;
        headerlessRow1 = null;
        int pairs = NpuSmiDeviceRows.chipRowPairs(row);
        if (pairs < 0) {
            headerless(line1, SmiLines.tokens(row1.cells().get(0)));
            headerlessStart(line, row, first);
            return;
        }
        String name = SmiLines.tokens(row1.cells().get(0)).get(1);
        if (pairs != 2) {
            if (onePairRows.isEmpty()) {
                onePairFirstLine = line1;
                onePairChip = name;
                onePairCount = pairs;
            }
            onePairRows.add(line1 + "-" + line);
            return;
        }
        chipHeader.clear();
        chipHeader.addAll(NpuSmiDeviceRows.standInHeader(row));
        layoutInferred = true;
        inferredChip = name;
        // mode stays NONE: every further pair must show this shape again, so a process row or a
        // one-pair (310P) row after it is not read in a layout that is not its own
        chip(line1, row1, line, row);
    }

    private void dropHeaderlessRow1() {
        if (headerlessRow1 != null) {
            headerless(headerlessLine, SmiLines.tokens(headerlessRow1.cells().get(0)));
            headerlessRow1 = null;
        }
    }

    /** One warning names every headerless pair left unread for its single 'used / total' pair. */
    private void endOnePair() {
        if (!onePairRows.isEmpty()) {
            warnings.add("line " + onePairFirstLine + ": rows without npu-smi's header (" + onePairChip + ", lines "
                    + String.join(", ", onePairRows) + "): the chip row holds " + onePairCount
                    + " 'used / total' pair(s), not Memory-Usage and HBM-Usage;"
                    + " without the header it cannot be told which memory it is, so nothing was read from these rows"
                    + " (paste the table with its header)");
        }
        onePairRows.clear();
    }

    /** One warning names the process rows read in npu-smi's process table layout, without their header. */
    private void endInferredProcesses() {
        if (!inferredProcRows.isEmpty()) {
            warnings.add("line " + inferredProcRows.get(0) + ": process rows without npu-smi's header (line"
                    + (inferredProcRows.size() > 1 ? "s " : " ") + String.join(", ", inferredProcRows)
                    + "): read in the layout npu-smi info prints, 'NPU Chip | Process id | Process name | Process memory(MB)'"
                    + " (MB = MiB); their values are inferred");
        }
        inferredProcRows.clear();
    }

    /** Ends reading with the stood-in header; one warning names the rows read that way. */
    private void endInferred() {
        if (layoutInferred && !inferredPairs.isEmpty()) {
            warnings.add("line " + inferredFirstLine + ": rows without npu-smi's header (lines "
                    + String.join(", ", inferredPairs) + "): read in the layout npu-smi info prints for " + inferredChip
                    + ", HBM-Usage(MB) as the last a / b pair of the chip row (MB = MiB); their values are inferred");
        }
        layoutInferred = false;
        inferredPairs.clear();
    }

    private void flushPending() {
        if (pendingRow1 != null) {
            List<String> t = SmiLines.tokens(pendingRow1.cells().get(0));
            warnings.add("line " + pendingLine + ": NPU " + (t.isEmpty() ? "?" : t.get(0))
                    + " has its first row but not its second (Chip, Bus-Id, memory columns); the table looks cut off,"
                    + " so this chip's memory was not read");
            pendingRow1 = null;
        }
    }

    private void chipRow(int line, Row row) {
        if (pendingRow1 == null) {
            pendingRow1 = row;
            pendingLine = line;
            return;
        }
        Row row1 = pendingRow1;
        pendingRow1 = null;
        chip(pendingLine, row1, line, row);
    }

    private void chip(int line1, Row row1, int line2, Row row2) {
        List<String> id1 = SmiLines.tokens(row1.cells().get(0));
        List<String> id2 = SmiLines.tokens(row2.cells().get(0));
        if (id1.isEmpty() || !INT.matcher(id1.get(0)).matches()) {
            warnings.add("line " + line1 + ": expected an NPU id at the start of the chip row, found "
                    + Quote.of(row1.cells().get(0)) + "; row pair skipped");
            return;
        }
        if (id2.isEmpty() || !INT.matcher(id2.get(0)).matches()) {
            warnings.add("line " + line2 + ": expected a Chip id at the start of the second chip row, found "
                    + Quote.of(row2.cells().get(0)) + "; NPU " + id1.get(0) + " skipped");
            return;
        }
        String device = "npu:" + id1.get(0) + "/chip:" + id2.get(0);
        if (layoutInferred) {
            inferredFirstLine = inferredPairs.isEmpty() ? line1 : inferredFirstLine;
            inferredPairs.add(line1 + "-" + line2);
        }
        Integer deviceId = null;
        Row header2 = chipHeader.size() > 1 ? chipHeader.get(1) : null;
        if (header2 != null) {
            List<String> h = SmiLines.tokens(header2.cells().get(0));
            if (h.size() > 1 && id2.size() > 1 && INT.matcher(id2.get(1)).matches()
                    && (h.get(1).equalsIgnoreCase("Phy-ID") || h.get(1).equalsIgnoreCase("Device"))) {
                deviceId = Integer.valueOf(id2.get(1));
            }
        }
        deviceIds.put(device, deviceId);
        List<Row> rows = List.of(row1, row2);
        int[] lines = {line1, line2};
        int warned = warnings.size();
        int expected = 0;
        int found = 0;
        for (int r = 0; r < Math.min(rows.size(), chipHeader.size()); r++) {
            expected += memoryColumns(chipHeader.get(r));
            Map<String, Field> fields = fields(lines[r], chipHeader.get(r), rows.get(r), device);
            for (String name : fields.keySet().stream().sorted().toList()) {
                Usage kind = name.startsWith("hbm-usage") ? Usage.HBM : name.startsWith("memory-usage") ? Usage.MEMORY : null;
                if (kind != null) {
                    found++;
                    usage(kind, name, fields.get(name), device, deviceId);
                }
            }
        }
        if (expected > found && warnings.size() == warned) {
            warnings.add("line " + line2 + ": " + device + ": the header announces " + expected
                    + " memory column(s) but the row holds " + found + "; missing values left absent");
        }
    }

    private static int memoryColumns(Row header) {
        int n = 0;
        for (int c = 1; c < header.cells().size(); c++) {
            for (String t : SmiLines.tokens(header.cells().get(c))) {
                String l = t.toLowerCase(Locale.ROOT);
                if (l.startsWith("hbm-usage") || l.startsWith("memory-usage")) {
                    n++;
                }
            }
        }
        return n;
    }

    /** A value under a header name, with the line it came from. */
    private record Field(int line, String text) {
    }

    /**
     * Matches the tokens of each data cell to the header names of the same cell. A usage
     * value ("used / total", with or without spaces around the slash) is one token.
     */
    private Map<String, Field> fields(int line, Row header, Row row, String device) {
        Map<String, Field> result = new HashMap<>();
        int cells = Math.min(header.cells().size(), row.cells().size());
        for (int c = 1; c < cells; c++) {
            if (!row.closed() && c == row.cells().size() - 1) {
                warnings.add("line " + line + ": row of " + device + " ends without its closing '|' (cut off);"
                        + " its last column " + Quote.of(row.cells().get(c)) + " was not read");
                break;
            }
            List<String> names = SmiLines.tokens(header.cells().get(c));
            List<String> values = SmiLines.tokens(PAIR_GAP.matcher(row.cells().get(c)).replaceAll("/"));
            if (names.isEmpty() || values.isEmpty()) {
                continue;
            }
            if (names.size() == values.size()) {
                for (int i = 0; i < names.size(); i++) {
                    result.put(names.get(i).toLowerCase(Locale.ROOT), new Field(line, values.get(i)));
                }
                continue;
            }
            // Counts differ (a missing value or an unannounced column): pair values can still
            // be matched to the '-Usage' columns in order, which is all this parser needs.
            List<String> usageNames = names.stream().filter(n -> n.toLowerCase(Locale.ROOT).contains("usage")).toList();
            List<String> pairs = values.stream().filter(v -> v.contains("/")).toList();
            if (usageNames.size() == pairs.size()) {
                for (int i = 0; i < pairs.size(); i++) {
                    result.put(usageNames.get(i).toLowerCase(Locale.ROOT), new Field(line, pairs.get(i)));
                }
            } else if (usageNames.stream().anyMatch(n -> n.toLowerCase(Locale.ROOT).matches("(hbm|memory)-usage.*"))) {
                warnings.add("line " + line + ": " + device + ": expected values for " + Quote.of(header.cells().get(c))
                        + ", found " + Quote.of(row.cells().get(c)) + "; these columns were not read");
            }
        }
        return result;
    }

    /** The two "used / total" columns of a chip row and the quantities they give. */
    private enum Usage {
        HBM("hbm", Quantity.HBM_USED, Quantity.HBM_TOTAL),
        MEMORY("memory", Quantity.MEMORY_USED, Quantity.MEMORY_TOTAL);

        final String label;
        final Quantity used;
        final Quantity total;

        Usage(String label, Quantity used, Quantity total) {
            this.label = label;
            this.used = used;
            this.total = total;
        }
    }

    private void usage(Usage kind, String headerName, Field f, String device, Integer deviceId) {
        Long unit = unit(headerName);
        if (unit == null) {
            warnings.add("line " + f.line() + ": " + device + ": column " + Quote.of(headerName)
                    + " has a unit this reader does not know (npu-smi writes MB, meaning MiB); not read");
            return;
        }
        String[] parts = f.text().split("/", -1);
        if (parts.length != 2) {
            warnings.add("line " + f.line() + ": " + device + ": expected 'used / total' under " + headerName
                    + ", found " + Quote.of(f.text()) + "; not read");
            return;
        }
        Long used = number(f.line(), device, kind.label + " used", parts[0]);
        Long total = number(f.line(), device, kind.label + " total", parts[1]);
        if (total != null && total == 0) {
            // 910B and Atlas A3 have no DDR visible to npu-smi: the tool prints a literal
            // "0 / 0" (print_card_total_info_with_HBM_second sets memory_total = memory_used = 0).
            // A zero capacity is a placeholder, not a measurement.
            return;
        }
        // rows read with a stood-in header: what the numbers are comes from npu-smi's fixed layout, not the text
        Context at = Context.builder().device(device).deviceId(deviceId).inferred(layoutInferred).build();
        if (used != null) {
            out.add(Observation.bytes(kind.used, used * unit, f.line(), parts[0]).in(at));
        }
        if (total != null) {
            out.add(Observation.bytes(kind.total, total * unit, f.line(), parts[1]).in(at));
        }
    }

    private Long number(int line, String device, String what, String text) {
        if (MIB_COUNT.matcher(text).matches()) {
            return Long.valueOf(text);
        }
        if (!isPlaceholder(text)) {
            warnings.add("line " + line + ": " + device + ": " + what + " " + Quote.of(text) + " cannot be read as a MiB count; left absent");
        }
        return null;
    }

    private static boolean isPlaceholder(String text) {
        return text.isEmpty() || text.equals("-") || text.equalsIgnoreCase("NA") || text.equalsIgnoreCase("N/A");
    }

    /** Bytes per unit named in a header such as {@code HBM-Usage(MB)}; MB means MiB here. */
    private static Long unit(String headerName) {
        Matcher m = UNIT.matcher(headerName);
        if (!m.find()) {
            return null;
        }
        return m.group(1).equalsIgnoreCase("MB") ? MIB : null;
    }

    /**
     * "No running processes found in NPU n": a process table that lists nothing for that NPU, so
     * its process memory is a measured 0 (not unknown). One {@code process_count} (value 0) per
     * chip of NPU n that the usage table showed, with that chip's device key.
     */
    private void noProcess(int line, String npu, String text) {
        for (String device : chipsOf(npu)) {
            out.add(Observation.value(Quantity.PROCESS_COUNT, 0, line, text)
                    .in(Context.builder().device(device).deviceId(deviceIds.get(device)).build()));
        }
    }

    private java.util.List<String> chipsOf(String npu) {
        for (; chipsIndexed < out.size(); chipsIndexed++) {
            Observation o = out.get(chipsIndexed);
            String device = o.context().device();
            int slash = device == null ? -1 : device.indexOf('/');
            if (slash > 4 && device.startsWith("npu:") && o.quantity() != Quantity.PROCESS_COUNT) {
                chipsByNpu.computeIfAbsent(device.substring(4, slash), k -> new java.util.LinkedHashSet<>()).add(device);
            }
        }
        return List.copyOf(chipsByNpu.getOrDefault(npu, java.util.Set.of()));
    }

    /**
     * One row of a process table under {@code header}: the table's own, or npu-smi's layout standing
     * in for a header that was not pasted ({@code inferred}: the observation is marked so).
     */
    private void processRow(int line, Row row, Row header, boolean inferred) {
        String whole = String.join(" ", row.cells()).strip();
        Matcher none = NO_PROCESS.matcher(whole);
        if (none.find()) {
            noProcess(line, none.group(1), whole);
            return;
        }
        if (mode == Mode.PROC_HEADER) {
            return; // a second header line, if a driver ever prints one
        }
        Row procHeader = header;
        int pidCell = -1;
        int nameCell = -1;
        int memCell = -1;
        for (int c = 0; c < procHeader.cells().size(); c++) {
            String h = procHeader.cells().get(c).toLowerCase(Locale.ROOT);
            if (h.startsWith("process id") && !h.contains("container") && pidCell < 0) {
                pidCell = c;
            } else if (h.startsWith("process name") && nameCell < 0) {
                nameCell = c;
            } else if (h.startsWith("process memory") && memCell < 0) {
                memCell = c;
            }
        }
        List<String> ids = SmiLines.tokens(row.cells().get(0));
        if (ids.size() < 2 || !INT.matcher(ids.get(0)).matches() || !INT.matcher(ids.get(1)).matches()) {
            warnings.add("line " + line + ": expected 'NPU  Chip' ids at the start of a process row, found "
                    + Quote.of(row.cells().get(0)) + "; row skipped");
            return;
        }
        String device = "npu:" + ids.get(0) + "/chip:" + ids.get(1);
        if (memCell < 0 || pidCell < 0) {
            warnings.add("line " + line + ": process table header has no 'Process id' or 'Process memory' column; row skipped");
            return;
        }
        if (memCell >= row.cells().size() || (!row.closed() && memCell == row.cells().size() - 1)) {
            warnings.add("line " + line + ": process row of " + device + " is cut off before its memory column; not read");
            return;
        }
        String pidText = row.cell(pidCell);
        String memText = row.cell(memCell);
        Long unit = unit(procHeader.cells().get(memCell));
        if (unit == null) {
            warnings.add("line " + line + ": process memory column " + Quote.of(procHeader.cells().get(memCell))
                    + " has a unit this reader does not know; not read");
            return;
        }
        Long mem = number(line, device, "process memory", memText);
        if (mem == null) {
            return;
        }
        Integer deviceId = deviceIds.get(device);
        Context.Builder at = Context.builder().device(device).deviceId(deviceId).inferred(inferred);
        Long pid = pidText != null && PID.matcher(pidText).matches() ? Long.valueOf(pidText) : null;
        String name = nameCell >= 0 ? row.cell(nameCell) : null;
        int npu = Integer.parseInt(ids.get(0));
        processes.add(new NpuSmiProcess(npu, Integer.parseInt(ids.get(1)), deviceId != null ? deviceId : npu, pid,
                name == null ? "" : name.strip(), mem * unit));
        if (pid != null) {
            at.pid(pid);
        } else {
            warnings.add("line " + line + ": " + device + ": process id " + Quote.of(pidText) + " is not a number; pid left absent");
        }
        if (name != null && !name.isBlank()) {
            at.processName(name);
        }
        out.add(Observation.bytes(Quantity.PROCESS_MEMORY, mem * unit, line, memText).in(at.build()));
    }

    private static boolean startsWith(List<String> tokens, String a, String b) {
        return tokens.size() >= 2 && tokens.get(0).equalsIgnoreCase(a) && tokens.get(1).equalsIgnoreCase(b);
    }

    /** True when a line (already {@link SmiLines#clean cleaned}) is an npu-smi table header. */
    static boolean isHeader(String cleaned) {
        if (!cleaned.startsWith("|")) {
            return false;
        }
        List<String> first = SmiLines.tokens(SmiLines.row(cleaned).cells().get(0));
        return startsWith(first, "NPU", "Name") && cleaned.contains("Health")
                || startsWith(first, "NPU", "Chip") && cleaned.toLowerCase(Locale.ROOT).contains("process id")
                || !first.isEmpty() && first.get(0).equalsIgnoreCase("Chip") && cleaned.contains("Bus-Id")
                        && (cleaned.contains("HBM-Usage") || cleaned.contains("Memory-Usage"));
    }
}
