package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * gpu_memory_utilization values a person states in prose, such as vllm-ascend #8621's
 * "第一个实例设置为0.2启动，第二个设置为0.45后启动 ..." after naming {@code --gpu-memory-utilization}:
 * the settings of instances whose logs the paste does not hold. Only a line that names the
 * setting counts, and only ratios in (0, 1] on it; each is its own observation, in the order
 * written, with {@code component} = {@value #STATED}.
 */
final class UtilizationStatement {

    static final String STATED = "stated in prose";

    private static final Pattern NAMES = Pattern.compile(
            "gpu[-_ ]memory[-_ ]utili[sz]ation|memory utili[sz]ation|显存利用率|显存占用率", Pattern.CASE_INSENSITIVE);
    private static final Pattern RATIO = Pattern.compile("(?<![\\w.\\-])(0?\\.\\d{1,4}|1\\.0{1,4})(?![\\w.%])");

    private UtilizationStatement() {
    }

    static List<Observation> read(List<String> lines, int first, int last) {
        List<Observation> out = new ArrayList<>();
        for (int i = first; i <= last; i++) {
            String line = lines.get(i - 1);
            if (!NAMES.matcher(line.toLowerCase(Locale.ROOT)).find() && !NAMES.matcher(line).find()) {
                continue;
            }
            Matcher m = RATIO.matcher(line);
            while (m.find()) {
                double v = Double.parseDouble(m.group(1));
                if (v > 0 && v <= 1) {
                    out.add(Observation.value(Quantity.MEMORY_UTILIZATION, v, i, m.group(1))
                            .in(Context.builder().component(STATED).build()));
                }
            }
        }
        return out;
    }
}
