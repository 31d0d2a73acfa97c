package io.hbmledger.verdict;

import io.hbmledger.ledger.Source;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the evidence says of the programs beside vLLM, in the headroom finding's words: the other
 * serving programs its prose names, the fix it reports (rolling one back), and the containers its
 * start commands give cards to. Each is said only as far as the evidence goes: prose rarely says
 * which card a program used.
 */
final class OtherServicesSaid {

    /** The NPU id in a device key: {@code npu:3/chip:0}, {@code node-a/npu:3/chip:0}. */
    private static final Pattern NPU = Pattern.compile("(?:^|/)npu:(\\d+)(?:/|$)");

    private OtherServicesSaid() {
    }

    /**
     * The serving programs other than vLLM the evidence names (vllm-ascend #8809's MIS-TEI) and the
     * rollback it reports as the fix, as sentences; empty when none is named.
     */
    static String named(RunFacts run) {
        if (run.otherServices().isEmpty()) {
            return "";
        }
        List<String> each = run.otherServices().stream().map(RunFacts.OtherService::said).toList();
        StringBuilder out = new StringBuilder(" The evidence names another serving program beside vLLM: "
                + String.join("; ", each) + "; on a card it shares, it holds memory of its own.");
        for (RunFacts.OtherService o : run.otherServices()) {
            if (o.rollback() != null) {
                out.append(" The fix the evidence reports is rolling ").append(o.shortName()).append(" back to ")
                        .append(o.rollback().text()).append(" (").append(o.rollback().file()).append(':')
                        .append(o.rollback().line()).append("): the fix changed ").append(o.shortName())
                        .append(", not vLLM, so its newer version needed more than the free memory left beside vLLM;"
                                + " nothing in it says vLLM went beyond its own budget.");
            }
        }
        return out.toString();
    }

    /** Who must fit in the free memory: the programs the evidence names, else any other service. */
    static String who(RunFacts run, String where) {
        if (run.otherServices().isEmpty()) {
            return "Another service on " + where;
        }
        List<String> names = run.otherServices().stream().map(RunFacts.OtherService::shortName).toList();
        return String.join(" or ", names) + " (or any other service) on " + where;
    }

    /**
     * The containers that were given these devices, as a sentence: "npu:0/chip:0 is one of the 8
     * NPUs (/dev/davinci0-7) the vLLM container was given (file:12-19)"; empty when no start
     * command gives them. Cards are matched to npu-smi's NPU ids by number.
     */
    static String containers(RunFacts run, List<String> devices) {
        StringBuilder out = new StringBuilder();
        for (RunFacts.Container c : run.containers()) {
            List<String> given = devices.stream().filter(d -> npuId(d) != null && c.cards().contains(npuId(d))).toList();
            if (given.isEmpty()) {
                continue;
            }
            String whose = c.program() == null ? "a container" : "the " + c.program() + " container";
            String which = given.size() == 1 ? given.get(0) + " is one" : String.join(", ", given) + " are";
            out.append(String.format(Locale.ROOT, " %s of the %d NPUs (%s) %s was given (%s).", which, c.cards().size(),
                    cards(c.cards()), whose, lines(c.sources())));
        }
        return out.toString();
    }

    private static Integer npuId(String device) {
        Matcher m = NPU.matcher(device);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    /** "/dev/davinci0-7" for a run of ids, else each: "/dev/davinci0, /dev/davinci2". */
    private static String cards(List<Integer> ids) {
        List<Integer> sorted = ids.stream().sorted().toList();
        boolean run = sorted.get(sorted.size() - 1) - sorted.get(0) == sorted.size() - 1;
        if (run && sorted.size() > 1) {
            return "/dev/davinci" + sorted.get(0) + "-" + sorted.get(sorted.size() - 1);
        }
        return String.join(", ", sorted.stream().map(i -> "/dev/davinci" + i).toList());
    }

    /** "file:12-19 "--device /dev/davinci0" ..." for the flags of one command. */
    private static String lines(List<Source> sources) {
        Source first = sources.get(0);
        Source last = sources.get(sources.size() - 1);
        return first.file() + ":" + first.line() + (last.line() == first.line() ? "" : "-" + last.line())
                + " \"" + first.text() + "\"" + (sources.size() > 1 ? " ..." : "");
    }
}
