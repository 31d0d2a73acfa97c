package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * gpu_memory_utilization values a person states in prose, such as vllm-ascend #8621's
 * "第一个实例设置为0.2启动，第二个设置为0.45后启动 ..." after naming {@code --gpu-memory-utilization}:
 * the settings of instances whose logs the paste does not hold. Only a line that names the
 * setting and speaks of instances (services, containers) counts, so a retried start or a
 * sampling temperature is not taken for a co-tenant; only ratios in (0, 1] after the setting's
 * name and before another setting's name (temperature, top_p ...) are read, and not the operands
 * of arithmetic (a worked answer's "0.2 + 0.45 + 0.70 + 0.9 = 2.25"); each is its own
 * observation, in the order written, with {@code component} = {@value #STATED}.
 */
final class UtilizationStatement {

    static final String STATED = "stated in prose";

    private static final Pattern NAMES = Pattern.compile(
            "gpu[-_ ]memory[-_ ]utili[sz]ation|memory utili[sz]ation|显存利用率|显存占用率", Pattern.CASE_INSENSITIVE);
    private static final Pattern INSTANCES = Pattern.compile(
            "instances?|services?|containers?|tenants?|实例|容器|服务", Pattern.CASE_INSENSITIVE);
    private static final Pattern OTHER_SETTING = Pattern.compile(
            "temperature|top[-_ ]?[pk]|penalty|max[-_ ]?(?:model[-_ ]?len|num[-_ ]?seqs|tokens)|version|v\\d",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern RATIO = Pattern.compile("(?<![\\w.\\-])(0?\\.\\d{1,4}|1\\.0{1,4})(?![\\w.%])");
    /**
     * A ratio that is an operand of arithmetic someone worked out ("0.2 + 0.45 + 0.70 + 0.9 = 2.25
     * x 60.96", "4 x 0.22 = 0.88", "sum to <= ~0.95"), not a setting: after a number and an
     * operator, or after a comparison; before an operator and a number. "--gpu-memory-utilization=0.4"
     * is a setting: its "=" follows a name, not a number.
     */
    private static final Pattern OPERAND_BEFORE = Pattern.compile(
            "(?:[\\d)*]\\s*(?:[+*/=×]|x|-\\s)|<=?|>=?|≤|≥)\\s*~?\\s*$");
    private static final Pattern OPERAND_AFTER = Pattern.compile("^\\s*(?:[+*/=×]|x(?=\\s*\\d))");

    private UtilizationStatement() {
    }

    static List<Observation> read(List<String> lines, int first, int last) {
        List<Observation> out = new ArrayList<>();
        for (int i = first; i <= last; i++) {
            String line = lines.get(i - 1);
            Matcher name = NAMES.matcher(line);
            if (!name.find() || !INSTANCES.matcher(line).find()) {
                continue;
            }
            String after = line.substring(name.start());
            Matcher other = OTHER_SETTING.matcher(after);
            int end = other.find() ? other.start() : after.length();
            Matcher m = RATIO.matcher(after).region(0, end);
            while (m.find()) {
                double v = Double.parseDouble(m.group(1));
                boolean operand = OPERAND_BEFORE.matcher(after.substring(0, m.start())).find()
                        || OPERAND_AFTER.matcher(after.substring(m.end())).find();
                if (v > 0 && v <= 1 && !operand) {
                    out.add(Observation.value(Quantity.MEMORY_UTILIZATION, v, i, m.group(1))
                            .in(Context.builder().component(STATED).build()));
                }
            }
        }
        return out;
    }
}
