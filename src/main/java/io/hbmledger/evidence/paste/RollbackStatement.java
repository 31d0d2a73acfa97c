package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.ServingPrograms;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fix a person reports as rolling a serving program back to an older image or version, in one
 * line of prose: vllm-ascend #8809's "问题在mis-tei侧，镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决"
 * (the problem was on MIS-TEI's side; solved after rolling its image back to 7.2.RC1). It says the
 * newer version of that program needed what the older did not; the findings say so where they
 * speak of the room left beside vLLM. A line that says the rollback did not help ("still", "未解决")
 * gives nothing. Pure: lines in, observations out.
 */
final class RollbackStatement {

    private static final Pattern ROLLBACK = Pattern.compile(
            "(?i)回退|回滚|降级|退回|\\broll(?:ed|ing)?\\s*(?:it\\s+|\\S+\\s+)?back\\b|\\bdowngrad\\w*|\\brevert\\w*");
    private static final Pattern FIXED = Pattern.compile("(?i)解决|修复|恢复正常|\\bfix(?:es|ed)?\\b|\\bsolved\\b|\\bresolved\\b|\\bworks\\b|\\bworked\\b");
    private static final Pattern NOT_FIXED = Pattern.compile("(?i)未解决|没有解决|没解决|仍然|依然|还是不|\\bstill\\b|\\bnot\\b|n't\\b");
    /** The version a rollback went to when the program's name carries none: "back to 1.5", "回退到7.2.RC1". */
    private static final Pattern TARGET = Pattern.compile("(?i)(?:\\bto|到|至)\\s*[`'\"]?([\\w][\\w.\\-:/@]*\\d[\\w.\\-:/@]*)");

    private RollbackStatement() {
    }

    static List<Observation> read(List<String> lines, int first, int last) {
        List<Observation> out = new ArrayList<>();
        for (int line = first; line <= last; line++) {
            String text = lines.get(line - 1);
            Matcher verb = ROLLBACK.matcher(text);
            if (verb.find() && FIXED.matcher(text).find() && !NOT_FIXED.matcher(text).find()) {
                int at = verb.start();
                int n = line;
                rolledBack(text, at).ifPresent(p -> out.add(Observation.value(Quantity.ROLLBACK_FIX, 1, n, target(text, at, p))
                        .in(Context.builder().component(p.program()).build())));
            }
        }
        return out;
    }

    /** The program rolled back: the first named after the verb, else the last named before it. */
    private static Optional<ServingPrograms.Named> rolledBack(String text, int verb) {
        ServingPrograms.Named before = null;
        for (ServingPrograms.Named n : ServingPrograms.in(text)) {
            if (n.column() > verb) {
                return Optional.of(n);
            }
            before = n;
        }
        return Optional.ofNullable(before);
    }

    /** The image or version as written: the program's own name when it carries a tag, else the version after "to" / "到". */
    private static String target(String text, int verb, ServingPrograms.Named program) {
        if (program.column() > verb && program.written().matches(".*[:@].*\\d.*")) {
            return program.written();
        }
        Matcher m = TARGET.matcher(text);
        return m.find(verb) ? m.group(1) : program.written();
    }
}
