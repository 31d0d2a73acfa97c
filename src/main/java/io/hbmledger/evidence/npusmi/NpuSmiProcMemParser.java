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
 * Parses {@code npu-smi info -t proc-mem -i <NPU id> [-c <chip id>]} (Ascend driver tool 23.x to
 * 25.x): one line per process, {@code Process id:40188  Process name:VLLMWorker_TP  Process memory(MB):30511}
 * (no space after the colons; the name cut by the tool to about 15 characters, or empty when it
 * could not be read), or {@code No process in device.}
 *
 * <p>Without {@code -c} the tool prints {@code NPU ID : n} and {@code Chip Count : k}, then each
 * chip's process lines followed by its {@code Chip ID : c} line: the chip id comes after the
 * processes it names. With {@code -c} it prints the process lines alone, so the device comes
 * from the echoed command ({@link NpuSmiEcho}); without either the device is unknown (absent).
 * A block whose {@code Chip ID} comes first is read that way too.
 *
 * <p>Quantities: {@code process_memory} (bytes: MB means MiB, x 1,048,576, as in the process
 * table) with {@code pid} and {@code process_name}; {@code process_count} = 0 for
 * {@code No process in device.} on a known device. Never throws on content.
 */
public final class NpuSmiProcMemParser {

    public static final EvidenceFormat FORMAT = EvidenceFormat.NPU_SMI_PROC_MEM;

    private static final long MIB = 1L << 20;
    private static final Pattern PROCESS = Pattern.compile(
            "(?i)^process id\\s*:\\s*(\\d{1,18})\\s+process name\\s*:\\s*(.*?)\\s*process memory\\s*\\(([^)]*)\\)\\s*:\\s*(\\S+)$");
    private static final Pattern NO_PROCESS = Pattern.compile("(?i)^no process in device\\.?$");
    private static final Pattern ID = Pattern.compile("(?i)^(npu id|chip id|chip count)\\s*:\\s*(\\d{1,9})$");
    private static final Pattern MIB_COUNT = Pattern.compile("\\d{1,12}");

    /** A process line (or "no process") read before its chip is known. */
    private record Pending(int line, String text, Long pid, String name, Long bytes) {
    }

    private final List<Observation> out = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();
    private String npu;
    private String chip;
    private Integer chipCount;
    /** The chip id of this block comes after its processes (the tool's own order without -c). */
    private boolean chipAfter;
    private boolean warnedNoDevice;

    private NpuSmiProcMemParser() {
    }

    /** True when a cleaned line is a {@code -t proc-mem} process line. */
    static boolean isProcessLine(String cleaned) {
        return PROCESS.matcher(cleaned).matches();
    }

    /**
     * Parses proc-mem output given as lines; index i is line i+1.
     *
     * @return observations in line order and warnings naming lines; never null
     */
    public static SmiParse parse(List<String> lines) {
        NpuSmiProcMemParser p = new NpuSmiProcMemParser();
        for (int i = 0; i < lines.size(); i++) {
            p.accept(i + 1, SmiLines.clean(lines.get(i)));
        }
        p.flush(null);
        p.out.sort(java.util.Comparator.comparingInt(Observation::line));
        return new SmiParse(p.out, p.warnings);
    }

    private void accept(int line, String s) {
        java.util.Optional<NpuSmiEcho> echo = NpuSmiEcho.of(s);
        if (echo.isPresent()) {
            flush(null);
            npu = echo.get().npu();
            chip = echo.get().chip();
            chipCount = null;
            chipAfter = false;
            return;
        }
        Matcher id = ID.matcher(s);
        if (id.matches()) {
            String key = id.group(1).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
            switch (key) {
                case "npu id" -> {
                    flush(null);
                    npu = id.group(2);
                    chip = null;
                    chipCount = null;
                    chipAfter = false;
                }
                case "chip count" -> chipCount = Integer.valueOf(id.group(2));
                default -> {
                    if (!pending.isEmpty()) {
                        chipAfter = true;
                        flush(id.group(2));
                    } else if (!chipAfter) {
                        chip = id.group(2);
                    }
                }
            }
            return;
        }
        Matcher m = PROCESS.matcher(s);
        if (m.matches()) {
            process(line, m);
        } else if (NO_PROCESS.matcher(s).matches()) {
            add(new Pending(line, s, null, null, null));
        }
    }

    private void process(int line, Matcher m) {
        String unit = m.group(3);
        String mem = m.group(4);
        if (!unit.equalsIgnoreCase("MB")) {
            warnings.add("line " + line + ": process memory in " + Quote.of(unit)
                    + ", a unit this reader does not know (npu-smi writes MB, meaning MiB); not read");
            return;
        }
        if (!MIB_COUNT.matcher(mem).matches()) {
            warnings.add("line " + line + ": process memory " + Quote.of(mem) + " cannot be read as a MiB count; left absent");
            return;
        }
        String name = m.group(2).strip();
        add(new Pending(line, mem, Long.valueOf(m.group(1)), name.isEmpty() ? null : name, Long.parseLong(mem) * MIB));
    }

    private void add(Pending p) {
        if (chip != null && !chipAfter) {
            emit(p, device(chip));
        } else {
            pending.add(p);
        }
    }

    /** Gives the waiting lines their chip: the one named after them, else the only chip, else none. */
    private void flush(String chipAfterLines) {
        if (pending.isEmpty()) {
            return;
        }
        String c = chipAfterLines != null ? chipAfterLines : chip != null ? chip
                : chipCount != null && chipCount == 1 ? "0" : null;
        String device = c == null ? null : device(c);
        if (device == null && !warnedNoDevice) {
            warnedNoDevice = true;
            warnings.add("line " + pending.get(0).line() + ": no 'NPU ID' / 'Chip ID' line and no echoed"
                    + " 'npu-smi info -t proc-mem -i N -c M' for these processes, so their device is unknown;"
                    + " observations carry no device (paste the command line with the output to name it)");
        }
        for (Pending p : pending) {
            emit(p, device);
        }
        pending.clear();
    }

    private String device(String c) {
        return npu == null ? null : "npu:" + npu + "/chip:" + c;
    }

    private void emit(Pending p, String device) {
        if (p.bytes() == null) {
            if (device != null) {
                out.add(Observation.value(Quantity.PROCESS_COUNT, 0, p.line(), p.text()).in(Context.device(device)));
            }
            return;
        }
        out.add(Observation.bytes(Quantity.PROCESS_MEMORY, p.bytes(), p.line(), p.text())
                .in(Context.builder().device(device).pid(p.pid()).processName(p.name()).build()));
    }
}
