package io.hbmledger.evidence.paste;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tells a write-up about a folder's evidence (a worked answer such as the shared cases' case.md,
 * a triage note) from the evidence itself, by content. Such a text quotes the figures of the other
 * files and works arithmetic on them ("28220 / 32768 MiB used", "0.2 + 0.45 + 0.70 + 0.9 = 2.25");
 * read as evidence, its quotes become a second vLLM log or utilizations of instances that do not
 * exist. A write-up is told by two things together: it names other files of the folder (the
 * evidence it is about), and it carries an answer: a heading or bold label such as
 * {@code **One-line answer:**}, {@code ## Conclusion}, {@code **结论**}. A user's own issue text
 * may name an attachment, but does not answer itself; an answer without file names may be a
 * pasted comment holding real output, so both are needed. And a text that holds output lines of
 * its own (a log or a device table pasted in a fence or in the prose, found in none of the files it
 * names) is the user's issue, whatever its headings say ("### Answer I got from the docs
 * chatbot"): a write-up quotes the other files, it brings no output they lack. Pure: text in,
 * verdict out.
 */
public final class WorkedAnswer {

    /** A markdown heading or bold label whose words include an answer word, within its first 60 characters. */
    private static final Pattern ANSWER_LABEL = Pattern.compile(
            "^\\s{0,3}(?:#{1,6}\\s+|\\*\\*|__)[^\\n]{0,60}?(?:(?i:\\b(?:answer|verdict|conclusion|ledger says))|答案|结论|解答)");

    /**
     * Why a text is a write-up rather than evidence.
     *
     * @param named the other files of the folder the text names, in the order given
     * @param answerLine 1-based line of its answer label
     * @param answerText that line, stripped, at most 80 characters
     */
    public record Verdict(List<String> named, int answerLine, String answerText) {

        public Verdict {
            named = List.copyOf(named);
        }

        /** One clause for a warning: what it names and where its answer is. */
        public String reason() {
            return "a write-up about the folder's other files, not evidence: it names " + String.join(", ", named)
                    + " and answers at line " + answerLine + " (\"" + answerText + "\")";
        }
    }

    private WorkedAnswer() {
    }

    /** The label alone ("**One-line answer:**"), or a heading line cut at 80 characters. */
    private static String label(String line) {
        for (String mark : List.of("**", "__")) {
            int close = line.startsWith(mark) ? line.indexOf(mark, 2) : -1;
            if (close > 2) {
                return line.substring(0, close + 2);
            }
        }
        return line.length() > 80 ? line.substring(0, 80) : line;
    }

    /**
     * @param text the file's text
     * @param otherFiles the names (without folder) of the other files beside it
     * @return why the text is a write-up, or empty when it is to be read as evidence
     */
    public static Optional<Verdict> of(String text, Collection<String> otherFiles) {
        return of(text, otherFiles, name -> null);
    }

    /**
     * @param text the file's text
     * @param otherFiles the names (without folder) of the other files beside it
     * @param namedText the text of another file by its name, or null when it cannot be read
     * @return why the text is a write-up, or empty when it is to be read as evidence: it does not
     *     name other files, carries no answer, or holds an output line that none of the files it
     *     names contains
     */
    public static Optional<Verdict> of(String text, Collection<String> otherFiles, Function<String, String> namedText) {
        List<String> named = new ArrayList<>();
        for (String name : otherFiles) {
            // a bare "log" or "a" would match prose; a file name with an extension is specific
            if (name.indexOf('.') > 0 && name.length() >= 5 && text.contains(name)) {
                named.add(name);
            }
        }
        if (named.isEmpty()) {
            return Optional.empty();
        }
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = ANSWER_LABEL.matcher(lines[i]);
            if (m.find()) {
                return ownOutput(lines, named, namedText) ? Optional.empty()
                        : Optional.of(new Verdict(named, i + 1, label(lines[i].strip())));
            }
        }
        return Optional.empty();
    }

    /**
     * True when a line of output is in none of the named files: a log or error line, or a device
     * table line inside a fence (outside one, "| device | weights | kv |" is a write-up's own
     * markdown table).
     */
    private static boolean ownOutput(String[] lines, List<String> named, Function<String, String> namedText) {
        List<String> texts = named.stream().map(namedText).filter(t -> t != null).toList();
        boolean fenced = false;
        for (String line : lines) {
            PasteLine kind = PasteLine.of(line);
            fenced ^= kind == PasteLine.FENCE;
            if (kind != PasteLine.LOG && !(kind == PasteLine.SMI && fenced)) {
                continue;
            }
            String output = PasteLine.unquoted(line).strip();
            if (texts.stream().noneMatch(t -> t.contains(output))) {
                return true;
            }
        }
        return false;
    }
}
