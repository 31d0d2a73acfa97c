package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The simulator's npu-smi tables must have the real layout: a state rebuilt from each corpus
 * table's own figures renders to the same lines, character for character, except the power and
 * temperature columns (simulated, not copied).
 */
class NpuSmiFormatTest {

    private static final Pattern ROW1 = Pattern.compile("^\\| (\\d+)\\s+(\\S+)\\s+\\| OK .*");
    private static final Pattern ROW2 = Pattern.compile("^\\| 0\\s+\\| (\\S+)\\s+\\| 0\\s+0\\s+/ 0\\s+(\\d+)\\s*/ (\\d+)\\s+\\|$");
    private static final Pattern PROC = Pattern.compile("^\\| (\\d+)\\s+0\\s+\\| (\\d+)\\s+\\| (.*?)\\s*\\| (\\d+)\\s+\\|$");
    private static final Pattern TITLE = Pattern.compile("^\\| npu-smi (\\S+) .*");

    @Test
    void tableWithoutProcessesMatches910B1CorpusLayout() throws IOException {
        assertSameLayout(Corpus.file("npu-smi/vllm-ascend-312_910B1_8npu_no_running_processes.txt"));
    }

    @Test
    void tableWithProcessesMatches910B2CCorpusLayout() throws IOException {
        assertSameLayout(Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt"));
    }

    @Test
    void usagesFollowsTheCorpusKeyValueLayout() throws IOException {
        List<String> real = Files.readAllLines(Corpus.file("npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt"));
        SimState s = SimStateStore.idleHost(8, "910B1", 65536);
        List<String> sim = List.of(NpuSmiFormat.usages(s, 0).split("\n", -1));
        // Lines 2..5 of the corpus file ("NPU ID", "Chip Count", blank, "Chip ID") are identical.
        assertThat(sim.subList(0, 4)).containsExactlyElementsOf(real.subList(1, 5));
        // Every key the Atlas 200I A2 prints is printed with the same indentation and key width.
        for (String line : real.subList(5, real.size())) {
            String key = line.substring(0, line.indexOf(':') + 1);
            assertThat(sim).anyMatch(l -> l.startsWith(key));
        }
        // NPU 0 idles at 3437 MiB of 65536 (312 table): 100 * 3437 / 65536 = 5.2 -> 5 %.
        assertThat(sim).contains("        HBM Usage Rate(%)              : 5");
    }

    private static void assertSameLayout(Path corpusFile) throws IOException {
        List<String> lines = Files.readAllLines(corpusFile);
        int first = lines.indexOf(lines.stream().filter(l -> l.startsWith("+---")).findFirst().orElseThrow());
        int last = lines.size() - 1;
        while (!lines.get(last).startsWith("+===")) {
            last--;
        }
        List<String> real = lines.subList(first, last + 1);
        SimState state = stateFrom(real);
        List<String> sim = List.of(NpuSmiFormat.info(state).split("\n"));
        assertThat(sim).hasSameSizeAs(real);
        for (int i = 0; i < real.size(); i++) {
            assertThat(mask(sim.get(i))).as("line %d", i + 1).isEqualTo(mask(real.get(i)));
        }
    }

    /** Power(W) and Temp(C) sit in characters 46..75 of the first row of each NPU. */
    private static String mask(String line) {
        if (ROW1.matcher(line).matches()) {
            return line.substring(0, 46) + "#".repeat(30) + line.substring(76);
        }
        return line;
    }

    /** Rebuilds the state the table shows: used = baseline + process memory. */
    private static SimState stateFrom(List<String> real) {
        String version = null;
        String chip = null;
        List<Integer> ids = new ArrayList<>();
        List<String> bus = new ArrayList<>();
        List<Long> used = new ArrayList<>();
        long capacity = 0;
        Map<Integer, List<SimState.Allocation>> procs = new LinkedHashMap<>();
        for (String l : real) {
            Matcher m;
            if ((m = TITLE.matcher(l)).matches()) {
                version = m.group(1);
            } else if ((m = ROW1.matcher(l)).matches()) {
                ids.add(Integer.parseInt(m.group(1)));
                chip = m.group(2);
            } else if ((m = ROW2.matcher(l)).matches()) {
                bus.add(m.group(1));
                used.add(Long.parseLong(m.group(2)));
                capacity = Long.parseLong(m.group(3));
            } else if ((m = PROC.matcher(l)).matches()) {
                procs.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>())
                        .add(new SimState.Allocation(Long.parseLong(m.group(2)), m.group(3), "weights",
                                Long.parseLong(m.group(4)) * SimState.MIB));
            }
        }
        List<SimState.SimDevice> devices = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            List<SimState.Allocation> a = procs.getOrDefault(ids.get(i), List.of());
            long held = a.stream().mapToLong(SimState.Allocation::bytes).sum() / SimState.MIB;
            devices.add(new SimState.SimDevice(ids.get(i), bus.get(i), used.get(i) - held, a));
        }
        assertThat(devices).isNotEmpty();
        return new SimState(1, chip, version, capacity, 3104, devices);
    }
}
