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
 * <p>Prefixes can nest. vllm/utils {@code _add_prefix} wraps {@code sys.stdout.write}, and a
 * process that inherits an already wrapped stdout (a worker forked from its engine core, or a
 * worker that relabels itself once its parallel groups exist) wraps it again, so that one line
 * carries the outer label first: {@code (EngineCore_DP0 pid=1026745) (Worker_TP0 pid=1026751)
 * ERROR ...} and {@code (Worker pid=312) (Worker_TP0 pid=312) INFO ...} are both in public
 * vLLM issue logs; Ray's log monitor does the same with {@code (APIServer pid=5332)
 * (DPEngineCoreActor pid=5439, ip=...)}. The innermost label is the process that printed the
 * line. An outer {@code EngineCore_DPn} (or v0.8-0.9 {@code EngineCore_n}) is the engine core
 * that started it, i.e. its DP replica, which a dense model's worker label leaves out.
 *
 * @param process the innermost label inside the leading parentheses, e.g. {@code Worker_TP0 pid=77}
 *     or {@code NPURayWorkerWrapper pid=399601, ip=192.0.2.10}; null when the piece has none
 * @param pid the pid in that label, or null
 * @param dpRank the DP rank of an outer engine-core label around it, or null
 * @param message the text after the prefix and the logger header
 * @param tabular true when the logger header was found: the message is a whole log record
 */
record LogSegment(String process, Long pid, Integer dpRank, String message, boolean tabular) {

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

    /** An engine core's label that names its DP replica: {@code EngineCore_DP1}, v0.8-0.9 {@code EngineCore_1}. */
    private static final Pattern ENGINE_OF_DP = Pattern.compile("EngineCore_(?:DP)?(\\d+)\\s+pid=.*");

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
            Integer dpRank = null;
            String rest = part;
            Matcher p = PREFIX.matcher(part);
            if (p.find()) {
                int end;
                do {
                    Matcher engine = ENGINE_OF_DP.matcher(process == null ? "" : process);
                    if (engine.matches()) {
                        dpRank = Integer.valueOf(engine.group(1));
                    }
                    process = p.group("label");
                    pid = Long.parseLong(p.group("pid"));
                    end = p.end();
                    int next = end;
                    while (next < part.length() && part.charAt(next) == ' ') {
                        next++;
                    }
                    p.region(next, part.length());
                } while (p.lookingAt());
                rest = part.substring(end);
            }
            Matcher h = HEADER.matcher(rest);
            boolean tabular = h.find();
            String message = tabular ? rest.substring(h.end()) : rest;
            out.add(new LogSegment(process, pid, dpRank, message.strip(), tabular));
        }
        return out;
    }
}
