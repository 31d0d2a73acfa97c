package io.hbmledger.evidence.nvidiasmi;

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
 * Parses the tables printed by plain {@code nvidia-smi} (NVIDIA drivers 384 to 580, Linux and
 * Windows TCC/WDDM): the GPU table, the {@code MIG devices} table and the {@code Processes}
 * table.
 *
 * <p>Each GPU (or MIG slice) is a block of rows between borders; the header says in which row
 * and cell {@code Memory-Usage} is printed (row 2 of a GPU block, row 1 of a MIG block, whose
 * row 2 is {@code BAR1-Usage} and is not framebuffer). Values are written {@code "1585MiB /
 * 11264MiB"}: MiB, so bytes = n x 1,048,576, with {@code text} as written ({@code "1585MiB"}).
 *
 * <p>Quantities: {@code fb_used}, {@code fb_total} on {@code "gpu:<index>"} or
 * {@code "gpu:<index>/mig:<MIG dev>"}; {@code process_memory} with {@code pid} and
 * {@code process_name}, on the MIG slice when the same text maps its GI/CI to a MIG device.
 * {@code N/A} (e.g. per-process memory under WDDM) is absent, with a warning. Never throws on
 * content: cut-off blocks and unreadable rows become warnings naming the line.
 */
public final class NvidiaSmiTableParser {

    public static final EvidenceFormat FORMAT = EvidenceFormat.NVIDIA_SMI;

    private static final long MIB = 1L << 20;
    private static final Pattern INT = Pattern.compile("\\d{1,9}");
    private static final Pattern USAGE = Pattern.compile("^(.+?)\\s*/\\s*(.+)$");
    private static final Pattern MIB_VALUE = Pattern.compile("^(\\d+)\\s*MiB$");
    private static final Pattern PROC_MIG = Pattern.compile(
            "^(\\d{1,9})\\s+(\\S+)\\s+(\\S+)\\s+(\\d{1,18})\\s+(\\S+)\\s+(.*?)\\s*(\\d+\\s*MiB|N/A)$");
    private static final Pattern PROC_PLAIN = Pattern.compile(
            "^(\\d{1,9})\\s+(\\d{1,18})\\s+(\\S+)\\s+(.*?)\\s*(\\d+\\s*MiB|N/A)$");

    private enum Kind { GPU, MIG, PROCESSES }

    private enum Mode { NONE, HEADER, BODY }

    private final List<Observation> out = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    /** "gpu/gi/ci" -> MIG dev, from the MIG devices table. */
    private final Map<String, String> migDevices = new HashMap<>();

    private Mode mode = Mode.NONE;
    private Kind kind;
    private final List<Row> header = new ArrayList<>();
    private final List<Row> block = new ArrayList<>();
    private final List<Integer> blockLines = new ArrayList<>();
    private int memRow = -1;
    private int memCell = -1;
    /** Process rows outside any table, read without their header. */
    private final NvidiaSmiHeaderlessProcesses headerless = new NvidiaSmiHeaderlessProcesses();

    private NvidiaSmiTableParser() {
    }

    /** Parses nvidia-smi text (as read, any line endings). */
    public static SmiParse parse(String text) {
        return parse(SmiLines.lines(text));
    }

    /**
     * Parses nvidia-smi output given as lines; index i is line i+1.
     *
     * @return observations in line order and warnings naming lines; never null
     */
    public static SmiParse parse(List<String> lines) {
        NvidiaSmiTableParser p = new NvidiaSmiTableParser();
        for (int i = 0; i < lines.size(); i++) {
            p.accept(i + 1, SmiLines.clean(lines.get(i)));
        }
        p.endOfTable();
        p.headerless.warning().ifPresent(p.warnings::add);
        List<Observation> sorted = new ArrayList<>(p.out);
        sorted.sort((a, b) -> Integer.compare(a.line(), b.line()));
        return new SmiParse(sorted, p.warnings);
    }

    private void accept(int line, String s) {
        if (s.isEmpty() || !(s.startsWith("|") || s.startsWith("+"))) {
            endOfTable();
            return;
        }
        if (SmiLines.isSeparator(s)) {
            if (mode == Mode.HEADER && s.contains("=")) {
                mode = Mode.BODY;
                locateMemory();
            } else if (mode == Mode.BODY) {
                flushBlock();
            }
            return;
        }
        Row row = SmiLines.row(s);
        // The process table's own header ("GPU GI CI PID ...") must not restart a MIG table.
        Kind k = mode == Mode.HEADER && kind == Kind.PROCESSES ? null : headerKind(row);
        if (k != null) {
            endOfTable();
            kind = k;
            mode = Mode.HEADER;
            header.clear();
            if (k != Kind.PROCESSES || !row.cells().get(0).startsWith("Processes")) {
                header.add(row);
            }
            return;
        }
        if (mode == Mode.NONE) {
            headerless.read(line, s).ifPresent(out::add);
        } else if (mode == Mode.HEADER) {
            header.add(row);
        } else if (mode == Mode.BODY) {
            if (String.join(" ", row.cells()).strip().toLowerCase(Locale.ROOT).matches("no (mig devices|running processes) found.*")) {
                return;
            }
            if (kind == Kind.PROCESSES) {
                processRow(line, row);
            } else {
                block.add(row);
                blockLines.add(line);
            }
        }
    }

    private static Kind headerKind(Row row) {
        List<String> t = SmiLines.tokens(row.cells().get(0));
        if (t.size() >= 4 && t.get(0).equals("GPU") && t.get(1).equals("GI") && t.get(2).equals("CI")) {
            return Kind.MIG;
        }
        if (t.size() >= 2 && t.get(0).equals("GPU") && t.get(1).equals("Name")) {
            return Kind.GPU;
        }
        if (!t.isEmpty() && t.get(0).startsWith("Processes")) {
            return Kind.PROCESSES;
        }
        return null;
    }

    /** Finds the header row and cell that say {@code Memory-Usage}. */
    private void locateMemory() {
        memRow = -1;
        memCell = -1;
        for (int r = 0; r < header.size() && memRow < 0; r++) {
            List<String> cells = header.get(r).cells();
            for (int c = 0; c < cells.size(); c++) {
                if (cells.get(c).contains("Memory-Usage")) {
                    memRow = r;
                    memCell = c;
                    break;
                }
            }
        }
    }

    private void endOfTable() {
        if (mode == Mode.BODY) {
            flushBlock();
        }
        mode = Mode.NONE;
        header.clear();
    }

    private void flushBlock() {
        if (block.isEmpty()) {
            return;
        }
        try {
            if (kind == Kind.GPU || kind == Kind.MIG) {
                device();
            }
        } finally {
            block.clear();
            blockLines.clear();
        }
    }

    private void device() {
        int line0 = blockLines.get(0);
        List<String> ids = SmiLines.tokens(block.get(0).cells().get(0));
        String device;
        if (kind == Kind.GPU) {
            if (ids.isEmpty() || !INT.matcher(ids.get(0)).matches()) {
                warnings.add("line " + line0 + ": expected a GPU index at the start of the row, found "
                        + Quote.of(block.get(0).cells().get(0)) + "; block skipped");
                return;
            }
            device = "gpu:" + ids.get(0);
        } else {
            if (ids.size() < 4 || !ids.stream().limit(4).allMatch(x -> INT.matcher(x).matches())) {
                warnings.add("line " + line0 + ": expected 'GPU GI CI MIG-dev' ids at the start of the MIG row, found "
                        + Quote.of(block.get(0).cells().get(0)) + "; block skipped");
                return;
            }
            device = "gpu:" + ids.get(0) + "/mig:" + ids.get(3);
            migDevices.put(ids.get(0) + "/" + ids.get(1) + "/" + ids.get(2), ids.get(3));
        }
        if (memRow < 0) {
            warnings.add("line " + line0 + ": " + device + ": the table header has no Memory-Usage column; memory not read");
            return;
        }
        if (memRow >= block.size()) {
            warnings.add("line " + blockLines.get(block.size() - 1) + ": " + device
                    + ": block ends before its Memory-Usage row (table cut off); memory not read");
            return;
        }
        Row row = block.get(memRow);
        int line = blockLines.get(memRow);
        String cell = row.cell(memCell);
        if (cell == null || (!row.closed() && memCell == row.cells().size() - 1)) {
            warnings.add("line " + line + ": " + device + ": row is cut off before its Memory-Usage column; memory not read");
            return;
        }
        Matcher m = USAGE.matcher(cell);
        if (!m.matches()) {
            warnings.add("line " + line + ": " + device + ": expected 'usedMiB / totalMiB' under Memory-Usage, found "
                    + Quote.of(cell) + "; memory not read");
            return;
        }
        emit(Quantity.FB_USED, m.group(1), line, device);
        emit(Quantity.FB_TOTAL, m.group(2), line, device);
    }

    private void emit(Quantity quantity, String text, int line, String device) {
        Long mib = mib(text, line, device + " " + quantity);
        if (mib != null) {
            out.add(Observation.bytes(quantity, mib * MIB, line, text).in(Context.device(device)));
        }
    }

    private Long mib(String text, int line, String what) {
        Matcher m = MIB_VALUE.matcher(text.strip());
        if (m.matches() && m.group(1).length() <= 12) { // bytes must fit a long
            return Long.valueOf(m.group(1));
        }
        warnings.add("line " + line + ": " + what + ": " + Quote.of(text) + " is not a MiB amount"
                + (text.contains("N/A") ? " (the driver does not report it)" : "") + "; left absent");
        return null;
    }

    private void processRow(int line, Row row) {
        String body = String.join(" ", row.cells()).strip();
        if (body.isEmpty() || body.toLowerCase(Locale.ROOT).startsWith("no running processes")) {
            return;
        }
        boolean mig = header.stream().anyMatch(h -> {
            List<String> t = SmiLines.tokens(h.cells().get(0));
            return t.size() >= 3 && t.get(0).equals("GPU") && t.get(1).equals("GI") && t.get(2).equals("CI");
        });
        if (!row.closed()) {
            warnings.add("line " + line + ": process row ends without its closing '|' (cut off); not read");
            return;
        }
        String gpu;
        String pid;
        String name;
        String mem;
        String device;
        Matcher m = (mig ? PROC_MIG : PROC_PLAIN).matcher(body);
        if (!m.matches()) {
            warnings.add("line " + line + ": expected a process row (GPU, " + (mig ? "GI, CI, " : "")
                    + "PID, Type, Process name, GPU Memory), found " + Quote.of(body) + "; not read");
            return;
        }
        if (mig) {
            gpu = m.group(1);
            pid = m.group(4);
            name = m.group(6);
            mem = m.group(7);
            String dev = migDevices.get(gpu + "/" + m.group(2) + "/" + m.group(3));
            device = dev != null ? "gpu:" + gpu + "/mig:" + dev : "gpu:" + gpu;
        } else {
            gpu = m.group(1);
            pid = m.group(2);
            name = m.group(4);
            mem = m.group(5);
            device = "gpu:" + gpu;
        }
        Long mib = mib(mem, line, device + " process " + pid + " memory");
        if (mib == null) {
            return;
        }
        Context at = Context.builder().device(device).pid(Long.valueOf(pid))
                .processName(name.isBlank() ? null : name.strip()).build();
        out.add(Observation.bytes(Quantity.PROCESS_MEMORY, mib * MIB, line, mem.strip()).in(at));
    }

    /** True when a cleaned line is an nvidia-smi table's title or header row. */
    static boolean isHeader(String cleaned) {
        if (!cleaned.startsWith("|")) {
            return false;
        }
        if (cleaned.matches("^\\|\\s*NVIDIA-SMI\\s+\\d.*")) {
            return true;
        }
        Row row = SmiLines.row(cleaned);
        Kind k = headerKind(row);
        return k == Kind.GPU || k == Kind.MIG || cleaned.matches("^\\|\\s*MIG devices:.*");
    }
}
