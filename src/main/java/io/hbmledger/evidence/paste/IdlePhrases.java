package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.StatedIdle;
import io.hbmledger.evidence.StatedStart;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the prose just above a pasted device table says about when it was taken: "Before starting
 * vLLM, npu-smi shows:", "the cards are idle", "启动前", "空闲". Such a table shows the devices
 * before the server held anything, an idle baseline, and is not to be compared with the server's
 * budget. The phrase nearest the table wins, so "before starting it the card had 3 GB; after
 * starting it npu-smi shows:" is a table taken after the start (no statement). Pure: lines in,
 * statement out.
 */
public final class IdlePhrases {

    /**
     * Not the start of a workload: "after running the benchmark" is a sample under load, not of the
     * server just started, and "before running the benchmark" not one of idle devices.
     */
    private static final String NOT_WORKLOAD = "(?!\\s+(?:the\\s+|a\\s+|an\\s+|some\\s+|my\\s+|our\\s+)?"
            + "(?:bench(?:mark)?s?|benchmarking|requests?|inference|tests?|workloads?|load\\s+tests?|quer(?:y|ies)|prompts?"
            + "|evals?|evaluations?|stress)\\b)";

    /**
     * Starting the server, in any tense: "after I started vLLM" said nothing, so a table below
     * "before starting, the card had 3 GB; after I started vLLM, npu-smi showed:" was taken as idle.
     */
    private static final String STARTED = "(?:start(?:s|ed|ing)?|start-?up|launch(?:es|ed|ing)?|run(?:s|ning)?|ran"
            + "|load(?:s|ed|ing)?|deploy(?:s|ed|ing)?)\\b" + NOT_WORKLOAD;

    /** Phrases saying the devices were idle or the server not started yet. */
    private static final Pattern BEFORE = Pattern.compile(
            "(?i)\\b(?:before|prior\\s+to)\\s+(?:i\\s+|we\\s+)?" + STARTED
                    + "|\\b(?:before|prior\\s+to)\\s+(?:the\\s+)?`*(?:vllm|server|service|model|engine)\\b"
                    + "|\\b(?:is|are|was|were|sits?|stay(?:s|ed)?)\\s+idle\\b|\\bidle\\s+(?:state|cards?|npus?|devices?|gpus?)\\b"
                    + "|\\bno\\s+(?:process(?:es)?|service|server|model)\\s+(?:is\\s+|was\\s+)?(?:running|started|loaded)\\b"
                    + "|(?:启动|拉起|部署|运行)[^，。,.;；\\s]{0,20}?之?前|(?:未|没有|还没|尚未)(?:启动|拉起|部署|运行)|空闲"
                    // a line that is only the label "before:" ({@link StatedIdle#bare()})
                    + "|^\\s*(?:before|之前|以前)(?=\\s*[:：]?\\s*$)");
    /** Phrases saying the server was started or running: a table after them is not idle. */
    private static final Pattern AFTER = Pattern.compile(
            "(?i)\\bafter\\s+(?:i\\s+|we\\s+)?" + STARTED
                    + "|\\bafter\\s+(?:the\\s+)?`*(?:vllm|server|service|model|engine)\\b"
                    + "|\\bonce\\s+(?:vllm|the\\s+server|the\\s+service|the\\s+model|it)\\s+(?:is|was)\\s+(?:up|running|started|loaded)\\b"
                    + "|\\b(?:vllm|the\\s+server|the\\s+service)\\s+(?:is|was)\\s+(?:up|running|started)\\b"
                    // "while serving", "while it was running": the server up
                    + "|\\bwhile\\s+(?:(?:vllm|the\\s+server|it)\\s+(?:is\\s+|was\\s+)?)?(?:running|serving)\\b" + NOT_WORKLOAD
                    + "|(?:启动|拉起|部署|运行)[^，。,.;；\\s]{0,20}?之?后|运行中|运行时");

    /** Words pointing back at what is above: the table just pasted. */
    private static final Pattern BACK = Pattern.compile("(?i)\\babove\\b|以上|上面|上述|上图");

    /** The end of a clause, before the one that introduces the next table. */
    private static final Pattern SENTENCE_END = Pattern.compile("[.,!?](?=\\s)|[;。；，！？]");

    private IdlePhrases() {
    }

    /**
     * The idle statement of lines {@code first..last} (1-based, inclusive: the prose right above a
     * table), from the phrase nearest the table; empty when that phrase says the server was up, or
     * none says when.
     */
    public static Optional<StatedIdle> of(List<String> lines, int first, int last) {
        return Optional.ofNullable(above(lines, first, last).idle());
    }

    /**
     * What lines {@code first..last} (the prose right above a table) say of when it was taken,
     * from the phrase nearest the table: idle ("Before starting vLLM:"), started ("After starting
     * vLLM:"), or neither.
     */
    public static Said above(List<String> lines, int first, int last) {
        for (int n = last; n >= first; n--) {
            Said s = said(lines.get(n - 1), n);
            if (s.any()) {
                return s;
            }
        }
        return Said.NOTHING;
    }

    /**
     * What line {@code first}, the first line of the prose right below a table, says of it when
     * it refers back to it with a word pointing up ("The above is before starting vLLM.",
     * "以上是启动前的npu-smi"). A clause ending in a colon introduces what follows, not the table,
     * so it is left out ("The above is idle. After starting it:" says the table is idle). Only
     * that line: a sentence further down speaks of something else as often as of the table.
     */
    public static Said below(List<String> lines, int first) {
        String line = lines.get(first - 1).strip();
        if (line.endsWith(":") || line.endsWith("：")) {
            Matcher end = SENTENCE_END.matcher(line);
            int cut = 0;
            while (end.find()) {
                cut = end.end();
            }
            line = line.substring(0, cut);
        }
        return BACK.matcher(line).find() ? said(line, first) : Said.NOTHING;
    }

    /** The phrase of one line that is nearest its end: idle, started, or neither. */
    private static Said said(String line, int n) {
        int before = lastEnd(BEFORE, line);
        int after = lastEnd(AFTER, line);
        if (before < 0 && after < 0) {
            return Said.NOTHING;
        }
        return before > after
                ? new Said(lastMatch(BEFORE, line).map(f -> new StatedIdle(n, f)).orElseThrow(), null)
                : new Said(null, lastMatch(AFTER, line).map(f -> new StatedStart(n, f)).orElseThrow());
    }

    /**
     * What prose says of a table's moment: at most one of the two is set.
     *
     * @param idle the table shows idle devices, before the server started; or null
     * @param started the table was taken after the server started; or null
     */
    public record Said(StatedIdle idle, StatedStart started) {

        public static final Said NOTHING = new Said(null, null);

        /** True when the prose says either. */
        public boolean any() {
            return idle != null || started != null;
        }
    }

    /**
     * For a file read whole as a device table ({@code npu-smi info} text with a sentence above it,
     * no fence): what the lines above its first table line ({@code |} or {@code +}, after any
     * {@code >} quote marks) say of when it was taken, as {@link #above}.
     */
    public static Said aboveFirstTable(List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            String s = PasteLine.unquoted(lines.get(i)).strip();
            if (s.startsWith("|") || s.startsWith("+")) {
                return i == 0 ? Said.NOTHING : above(lines, 1, i);
            }
        }
        return Said.NOTHING;
    }

    private static Optional<String> lastMatch(Pattern p, String line) {
        Matcher m = p.matcher(line);
        String found = null;
        while (m.find()) {
            found = m.group();
        }
        return Optional.ofNullable(found);
    }

    private static int lastEnd(Pattern p, String line) {
        Matcher m = p.matcher(line);
        int end = -1;
        while (m.find()) {
            end = m.end();
        }
        return end;
    }
}
