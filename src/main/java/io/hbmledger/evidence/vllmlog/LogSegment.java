package io.hbmledger.evidence.vllmlog;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One piece of a log line, cleaned: colour codes removed, the worker prefix taken out as the
 * process label, and the vLLM logger header ({@code INFO 04-12 08:21:19 [worker.py:267]})
 * skipped, so that only the message is left for the phrase rules.
 *
 * <p>A line splits into pieces at carriage returns: tqdm redraws its bar with CR, and the log
 * line written next ends up inside the same LF-terminated line, before or after the bar.
 *
 * @param process the label inside the leading parentheses, e.g. {@code Worker_TP0 pid=77} or
 *     {@code NPURayWorkerWrapper pid=399601, ip=192.0.2.10}; null when the piece has none
 * @param pid the pid in that label, or null
 * @param message the text after the prefix and the logger header
 * @param tabular true when the logger header was found: the message is a whole log record
 */
record LogSegment(String process, Long pid, String message, boolean tabular) {

    /**
     * Colour codes in every form seen in pasted logs: the real ESC byte, caret notation as
     * written by {@code cat -v} ({@code ^[[1;36m}), octal text from syslog/journald
     * ({@code #033[}), escaped text ({@code \033[}, {@code \x1b[}, {@code \e[}), and the bare
     * remainder when a paste lost the ESC ({@code [1;36m}).
     */
    private static final Pattern COLOUR = Pattern.compile(
            "(?:\\x1b|\\^\\[|#033|\\\\033|\\\\x1[bB]|\\\\e|\\\\u001[bB])\\[[0-9;]*[A-Za-z]"
                    + "|\\[[0-9]{1,3}(?:;[0-9]{1,3})*m");

    /**
     * The worker prefix vLLM adds to every line a child process prints, {@code ({name} pid={pid})}
     * (vllm/utils {@code _add_prefix}): V0 multiprocessing workers {@code (VllmWorkerProcess
     * pid=521)}, V1 {@code (EngineCore_DP0 pid=298)}, {@code (Worker_TP0 pid=34322)}, and the
     * two-word names of v0.8-v0.10.1 multiproc_executor.py, {@code (VllmWorker rank=0 pid=9)} and
     * {@code (VllmWorker PP1_TP0 pid=9)}; Ray actors {@code (RayWorkerWrapper pid=1,
     * ip=10.0.0.1)}, and Ray's bare {@code (pid=1234)} for a task or actor without a class name.
     * The second word is held to those two forms so that ordinary text in parentheses is not
     * taken for a label. It is searched anywhere, not only at the start, because a tqdm bar may
     * be glued in front.
     */
    private static final Pattern PREFIX = Pattern.compile(
            "\\((?<label>(?:[A-Za-z_][\\w.:-]*\\s+(?:(?:rank=\\d+|(?:PP\\d+_?)?(?:TP\\d+)?)\\s+)?)?"
                    + "pid=(?<pid>\\d+)(?:,\\s*ip=[^)\\s]*)?)\\)");

    /**
     * vLLM's logger format: {@code %(levelname)s %(asctime)s [%(filename)s:%(lineno)d]} with
     * asctime as {@code %m-%d %H:%M:%S}; before v0.8 the opening bracket was missing
     * ({@code INFO 02-29 19:21:45 model_runner.py:90]}).
     */
    static final Pattern HEADER = Pattern.compile(
            "\\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\\s+(?:\\d{4}-)?\\d\\d-\\d\\d\\s+\\d\\d:\\d\\d:\\d\\d(?:[.,]\\d+)?\\s+"
                    + "\\[?[\\w./-]+\\.py:\\d+\\]\\s?");

    /** Literal "^M" text, as a carriage return looks after {@code cat -v}. */
    private static final Pattern CARET_CR = Pattern.compile("\\^M");

    static String stripColour(String s) {
        return COLOUR.matcher(s).replaceAll("");
    }

    /** Splits one contract line into its cleaned pieces (one per CR-separated part). */
    static List<LogSegment> of(String line) {
        String clean = stripColour(CARET_CR.matcher(line).replaceAll("\r"));
        List<LogSegment> out = new ArrayList<>();
        for (String part : clean.split("\r")) {
            if (part.isBlank()) {
                continue;
            }
            String process = null;
            Long pid = null;
            String rest = part;
            Matcher p = PREFIX.matcher(part);
            if (p.find()) {
                process = p.group("label");
                pid = Long.parseLong(p.group("pid"));
                rest = part.substring(p.end());
            }
            Matcher h = HEADER.matcher(rest);
            boolean tabular = h.find();
            String message = tabular ? rest.substring(h.end()) : rest;
            out.add(new LogSegment(process, pid, message.strip(), tabular));
        }
        return out;
    }
}
