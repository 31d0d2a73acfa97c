package io.hbmledger.evidence.command;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PyTorch's caching-allocator setting where a line assigns it: {@code PYTORCH_CUDA_ALLOC_CONF}
 * (torch) or {@code PYTORCH_NPU_ALLOC_CONF} (torch_npu), as {@code collect_env} lists the
 * environment ({@code NAME=value}, vllm/collect_env.py {@code get_env_vars}, vllm-ascend's
 * collect_env.py alike), as a shell sets it ({@code export NAME="value"}, {@code NAME=value vllm
 * serve ...}, {@code docker run -e NAME=value}, a Dockerfile's {@code ENV NAME=value}) or as Python
 * does ({@code os.environ["NAME"] = "value"}). The value is a comma-separated list of
 * {@code option:value} pairs; {@code expandable_segments:True} turns expandable segments on
 * (torch's c10/cuda/CUDAAllocatorConfig, torch_npu's NPU allocator config). Pure.
 */
public final class AllocatorConf {

    private static final Pattern ASSIGN = Pattern.compile(
            "(?:^|[\\s;(\\[\"'])(?<var>PYTORCH_(?:CUDA|NPU)_ALLOC_CONF)(?:[\"']\\])?\\s*=\\s*(?<v>\"[^\"]*\"|'[^']*'|[^\\s;\"']+)");
    /** Words before the variable that advise it rather than set it: torch 2.1+'s OOM message "... try setting NAME=...". */
    private static final Pattern ADVICE = Pattern.compile("(?i)(?:try|consider|recommend\\w*|suggest\\w*)\\s+setting\\s+`?$");
    private static final Pattern EXPANDABLE = Pattern.compile("(?i)(?:^|,)\\s*expandable_segments\\s*:\\s*true\\s*(?:,|$)");

    private AllocatorConf() {
    }

    /** Cheap test before {@link #read}: the line names one of the variables. */
    public static boolean mayHold(String line) {
        return line.contains("_ALLOC_CONF");
    }

    /**
     * The assignments of one line: {@code expandable_segments} 1 or 0 per assignment, text = the
     * value as written (quotes removed), component = the variable.
     *
     * @param lineNo 1-based line of the observations
     */
    public static List<Observation> read(String line, int lineNo) {
        List<Observation> out = new ArrayList<>();
        if (!mayHold(line)) {
            return out;
        }
        Matcher m = ASSIGN.matcher(line);
        while (m.find()) {
            if (ADVICE.matcher(line.substring(Math.max(0, m.start("var") - 40), m.start("var"))).find()) {
                continue; // torch's OOM text advises the setting ("... try setting PYTORCH_CUDA_ALLOC_CONF=..."): not set
            }
            String v = m.group("v");
            if ((v.startsWith("\"") || v.startsWith("'")) && v.length() >= 2) {
                v = v.substring(1, v.length() - 1);
            }
            if (v.isBlank() || v.startsWith("$")) {
                continue; // unset, or a shell variable whose value the line does not show
            }
            out.add(Observation.value(Quantity.EXPANDABLE_SEGMENTS, EXPANDABLE.matcher(v).find() ? 1 : 0, lineNo, v)
                    .in(Context.builder().component(m.group("var")).build()));
        }
        return out;
    }
}
