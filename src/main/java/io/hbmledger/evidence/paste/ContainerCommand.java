package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.ServingPrograms;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The NPUs a container start command gives its container: {@code docker run} (or podman,
 * nerdctl) with {@code --device /dev/davinciN} per card, as the Ascend guides write it (vllm-ascend's
 * quick start: "--device /dev/davinci0 ... Update DEVICE according to your device
 * (/dev/davinci[0-7])"; MindIE's: "/dev/davinciX: NPU设备, X是ID号"). vllm-ascend #8809's
 * resolution runs its vLLM image with davinci0 to davinci7: all eight cards of the host are the
 * server's, the ones the other service had to share. The management devices
 * ({@code davinci_manager}, {@code devmm_svm}, {@code hisi_hdc}) are no cards and give nothing. The
 * command runs on from a line ending in a backslash. Ascend Docker Runtime's
 * {@code -e ASCEND_VISIBLE_DEVICES=0-3} gives cards too (its guide: the physical processor ids).
 * Pure: lines in, observations out.
 */
final class ContainerCommand {

    private static final Pattern START = Pattern.compile("(?<![\\w-])(?:docker|podman|nerdctl)\\s+(?:container\\s+)?(?:run|create)\\b");
    /** {@code --device /dev/davinci3}, {@code --device=/dev/davinci3:/dev/davinci3:rwm}. */
    private static final Pattern DEVICE = Pattern.compile("--device(?:=|\\s+)['\"]?/dev/davinci(\\d{1,3})(?![\\w])");
    /**
     * Ascend Docker Runtime's way ({@code docker run -e ASCEND_VISIBLE_DEVICES=0 ...}: "Mount a
     * processor whose physical processor ID is 0"), ids and ranges as {@code 0-3,7}.
     */
    private static final Pattern RUNTIME = Pattern.compile("(?:-e|--env)(?:=|\\s+)['\"]?ASCEND_VISIBLE_DEVICES=([\\d,\\-]+)");
    private static final Pattern VLLM = Pattern.compile("(?i)vllm");

    private ContainerCommand() {
    }

    /** The cards of the container commands in lines {@code first..last} (1-based, inclusive); index i of {@code lines} is line i+1. */
    static List<Observation> read(List<String> lines, int first, int last) {
        List<Observation> out = new ArrayList<>();
        for (int n = first; n <= last; n++) {
            if (!START.matcher(PasteLine.unquoted(lines.get(n - 1))).find()) {
                continue;
            }
            int end = n;
            while (end < last && PasteLine.unquoted(lines.get(end - 1)).stripTrailing().endsWith("\\")) {
                end++;
            }
            out.addAll(devices(lines, n, end));
            n = end;
        }
        return out;
    }

    private static List<Observation> devices(List<String> lines, int from, int to) {
        StringBuilder whole = new StringBuilder();
        for (int n = from; n <= to; n++) {
            whole.append(PasteLine.unquoted(lines.get(n - 1))).append('\n');
        }
        String program = program(whole.toString());
        List<Observation> out = new ArrayList<>();
        Context owner = Context.builder().component(program).build();
        for (int n = from; n <= to; n++) {
            String line = PasteLine.unquoted(lines.get(n - 1));
            Matcher m = DEVICE.matcher(line);
            while (m.find()) {
                out.add(Observation.value(Quantity.CONTAINER_DEVICE, Integer.parseInt(m.group(1)), n, unquoted(m.group()))
                        .in(owner));
            }
            Matcher env = RUNTIME.matcher(line);
            while (env.find()) {
                for (int id : ids(env.group(1))) {
                    out.add(Observation.value(Quantity.CONTAINER_DEVICE, id, n, unquoted(env.group())).in(owner));
                }
            }
        }
        return out;
    }

    private static String unquoted(String flag) {
        return flag.replace("'", "").replace("\"", "");
    }

    /** "0-3,7" -> 0, 1, 2, 3, 7; a malformed list gives none. */
    private static List<Integer> ids(String list) {
        List<Integer> out = new ArrayList<>();
        for (String part : list.split(",")) {
            String[] range = part.split("-", -1);
            if (range.length > 2 || range[0].isEmpty() || range[range.length - 1].isEmpty() || part.length() > 9) {
                return List.of();
            }
            int lo = Integer.parseInt(range[0]);
            int hi = Integer.parseInt(range[range.length - 1]);
            if (hi < lo || hi - lo > 64) {
                return List.of();
            }
            for (int i = lo; i <= hi; i++) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * Whose container: vLLM's when the command names vllm (its image, {@code vllm serve}) and no
     * other serving program, that program's when it names one and not vllm; else nobody's.
     */
    private static String program(String command) {
        boolean vllm = VLLM.matcher(command).find();
        List<ServingPrograms.Named> named = ServingPrograms.in(command);
        if (vllm != named.isEmpty()) {
            return null;
        }
        return vllm ? "vLLM" : named.get(0).program();
    }
}
