package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.command.AllocatorConf;
import java.util.ArrayList;
import java.util.List;

/**
 * The environment a range of a paste shows that no tool's reader claims: the environment section
 * of vLLM's {@code collect_env} output ({@code python -m vllm.collect_env}, {@code vllm
 * collect-env}: a banner {@code Environment Variables} followed by {@code NAME=value} lines;
 * vllm-ascend's collect_env.py: {@code ENV Variables:} then the same lines), the {@code export}
 * lines of a start script, a person's own "I set NAME=value". Only the settings a finding weighs
 * are read ({@link AllocatorConf}), each where it is written.
 */
final class EnvironmentLines {

    private EnvironmentLines() {
    }

    /**
     * @param first 1-based first line of the range
     * @param last 1-based last line (inclusive)
     * @param skip lines another reader reads (inline commands in prose), as {first, last} pairs
     */
    static List<Observation> read(List<String> lines, int first, int last, List<int[]> skip) {
        List<Observation> out = new ArrayList<>();
        for (int line = first; line <= last; line++) {
            int at = line;
            if (skip.stream().noneMatch(r -> at >= r[0] && at <= r[1])) {
                out.addAll(AllocatorConf.read(PasteLine.unquoted(lines.get(line - 1)), line));
            }
        }
        return out;
    }
}
