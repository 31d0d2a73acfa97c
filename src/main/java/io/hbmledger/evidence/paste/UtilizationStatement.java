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
 * observation, in the order written, with {@code component} = {@value #STATED}. A share may be a
 * percentage ("设置为45%", value 0.45, text "45%"), after the setting's name or, on a line about
 * instances that does not name it, when it is a share of the memory ("each with 50% of the memory",
 * "30%的显存") and not a reading of its use ("90%的显存被占用").
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
    /** A ratio ("0.45", ".9", "1.0") or a percentage ("45%", "45 %", "100%"): group 1 or group 2. */
    private static final Pattern RATIO = Pattern.compile(
            "(?<![\\w.\\-])(?:(0?\\.\\d{1,4}|1\\.0{1,4})(?![\\w.%])|(\\d{1,2}(?:\\.\\d{1,2})?|100)\\s?[%％])");
    /**
     * A share of the device's memory written as a percentage without the setting's name ("each
     * with 50% of the memory", "30%的显存", "显存的30%"): group 1 or 2. Not one followed by a word
     * of use ("95% of the memory is used", "90%的显存被占用"): that is a reading, not a share.
     */
    private static final Pattern MEMORY_PERCENT = Pattern.compile(
            "(?i)(?<![\\w.])(\\d{1,2}(?:\\.\\d{1,2})?|100)\\s?[%％]\\s*(?:of\\s+(?:the\\s+|its\\s+)?(?:(?:gpu|npu|card|device|hbm|total)'?s?\\s+)?(?:memory|vram|hbm)\\b|的?(?:显存|内存))"
                    + "(?!\\s*(?:is\\s+|was\\s+|are\\s+)?(?:used|occupied|full|taken|in\\s+use|被|已|占用|使用))"
                    + "|(?:显存|内存)的\\s*(\\d{1,2}(?:\\.\\d{1,2})?|100)\\s?[%％]");
    /**
     * A ratio that is an operand of arithmetic someone worked out ("0.2 + 0.45 + 0.70 + 0.9 = 2.25
     * x 60.96", "4 x 0.22 = 0.88", "sum to <= ~0.95"), not a setting: after a number and an
     * operator, or after a comparison; before an operator and a number. "--gpu-memory-utilization=0.4"
     * is a setting: its "=" follows a name, not a number.
     */
    private static final Pattern OPERAND_BEFORE = Pattern.compile(
            "(?:[\\d)*%]\\s*(?:[+*/=×]|x|-\\s)|<=?|>=?|≤|≥)\\s*~?\\s*$");
    private static final Pattern OPERAND_AFTER = Pattern.compile("^\\s*(?:[+*/=×]|x(?=\\s*\\d))");

    private UtilizationStatement() {
    }

    static List<Observation> read(List<String> lines, int first, int last) {
        List<Observation> out = new ArrayList<>();
        for (int i = first; i <= last; i++) {
            String line = lines.get(i - 1);
            Matcher name = NAMES.matcher(line);
            if (!INSTANCES.matcher(line).find()) {
                continue;
            }
            if (!name.find()) {
                Matcher p = MEMORY_PERCENT.matcher(line);
                while (p.find()) {
                    int g = p.group(1) != null ? 1 : 2;
                    // the text as written: the number through its percent sign ("50%", "50 %", "50％")
                    int sign = p.end(g);
                    while (line.charAt(sign) != '%' && line.charAt(sign) != '％') {
                        sign++;
                    }
                    add(out, Double.parseDouble(p.group(g)) / 100, i, line.substring(p.start(g), sign + 1));
                }
                sharesByWord(lines, i, out);
                continue;
            }
            String after = line.substring(name.start());
            Matcher other = OTHER_SETTING.matcher(after);
            int end = other.find() ? other.start() : after.length();
            Matcher m = RATIO.matcher(after).region(0, end);
            while (m.find()) {
                boolean percent = m.group(1) == null;
                double v = percent ? Double.parseDouble(m.group(2)) / 100 : Double.parseDouble(m.group(1));
                boolean operand = OPERAND_BEFORE.matcher(after.substring(0, m.start())).find()
                        || OPERAND_AFTER.matcher(after.substring(m.end())).find();
                if (!operand && !(percent && reading(after, m.start(), m.end()))) {
                    add(out, v, i, percent ? m.group().strip() : m.group(1));
                }
            }
        }
        return out;
    }

    /**
     * A word for a share right before a ratio ("使用比例0.3", "比例为0.3", "a ratio of 0.3", "利用率0.85")
     * or right after it ("0.3比例"), on a line about instances that does not name the setting.
     */
    private static final Pattern SHARE_BEFORE = Pattern.compile(
            "(?i)(?:比例|占比|利用率|\\bratio|\\bshare|\\butili[sz]ation)\\s*(?:为|是|设为|设置为|of|=|:|：)?\\s*$");
    private static final Pattern SHARE_AFTER = Pattern.compile("^\\s*的?(?:比例|占比)");

    /**
     * vllm-ascend #7308's test list: "第一个实例使用比例0.3，第二个实例使用比例0.6时能够拉起两个服务" under
     * a paragraph that names {@code --gpu-memory-utilization}: ratios next to a word for a share, on
     * a line about instances, read as the setting only when a line above names it (a share of what is
     * not said otherwise: "利用率0.85" alone may be the AICore's). A percentage is left to
     * {@link #MEMORY_PERCENT}; a multiple ("0.05倍") has no share word.
     */
    private static void sharesByWord(List<String> lines, int n, List<Observation> out) {
        String line = lines.get(n - 1);
        List<String> found = new ArrayList<>();
        Matcher m = RATIO.matcher(line);
        while (m.find()) {
            if (m.group(1) != null && (SHARE_BEFORE.matcher(line.substring(Math.max(0, m.start() - 12), m.start())).find()
                    || SHARE_AFTER.matcher(line.substring(m.end())).find())) {
                found.add(m.group(1));
            }
        }
        if (!found.isEmpty() && lines.subList(0, n - 1).stream().anyMatch(l -> NAMES.matcher(l).find())) {
            found.forEach(text -> add(out, Double.parseDouble(text), n, text));
        }
    }

    /** Words around a percentage that make it a reading of use ("usage at 98%", "95% used", "占用95%"), not a share. */
    private static final Pattern READING_BEFORE = Pattern.compile(
            "(?i)(?:usage|used|occupied|occupancy|shows?|showing|reach(?:es|ed)?|AICore|占用(?:了|率)?|使用率|达到|到了)[^,;，。；]{0,6}$");
    private static final Pattern READING_AFTER = Pattern.compile(
            "(?i)^\\s*(?:of\\s+\\S+\\s+)?(?:is\\s+|was\\s+|are\\s+)?(?:used|occupied|full|taken|in\\s+use|busy|被|已|占用|使用)");

    private static boolean reading(String text, int start, int end) {
        return READING_BEFORE.matcher(text.substring(Math.max(0, start - 24), start)).find()
                || READING_AFTER.matcher(text.substring(end)).find();
    }

    /** A share in (0, 1], kept with its text as written ("0.45", "45%"). */
    private static void add(List<Observation> out, double v, int line, String text) {
        if (v > 0 && v <= 1) {
            out.add(Observation.value(Quantity.MEMORY_UTILIZATION, v, line, text)
                    .in(Context.builder().component(STATED).build()));
        }
    }
}
