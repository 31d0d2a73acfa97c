package io.hbmledger.evidence.paste;

import java.util.regex.Pattern;

/**
 * What one line of a pasted text looks like, by its content alone: the output of a tool
 * (npu-smi / nvidia-smi tables and key / value views), a log or error line (vLLM logger records,
 * worker prefixes, tracebacks, bare {@code ValueError: ...} lines, progress bars, OOM messages,
 * {@code vllm serve} and {@code torchrun} command lines), a markdown fence, a blank line, or prose.
 */
enum PasteLine {
    /** npu-smi / nvidia-smi output: table rows and borders, key / value views, their commands. */
    SMI,
    /** vLLM / torch output: log records, error lines, tracebacks, progress bars, server commands. */
    LOG,
    /** A markdown code fence: {@code ```} or {@code ~~~}, with or without a language. */
    FENCE,
    BLANK,
    PROSE;

    private static final Pattern FENCE_LINE = Pattern.compile("^\\s{0,3}(?:```|~~~)");
    /**
     * The start of a command line: an optional shell prompt ({@code $ }, {@code [root@host dir]# },
     * {@code (venv) user@host:~$ }), {@code sudo}, environment assignments ({@code CUDA_VISIBLE_DEVICES=4,5}).
     * A tool named in the middle of a sentence is prose.
     */
    private static final String PROMPT = "^(?:[^$#>]{0,80}[$#>]\\s*)?(?:sudo\\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+)*";
    private static final Pattern SMI_LINE = Pattern.compile(
            "^\\||^\\+[-=+]"
                    + "|NVIDIA-SMI|No running processes found"
                    + "|^(?:NPU ID|Chip ID|Chip Count|(?:HBM|DDR|Memory) (?:Capacity\\(MB\\)|Usage Rate\\(%\\)))\\s*:"
                    + "|^Process id\\s*:\\s*\\d+|^No process in device"
                    // the date nvidia-smi prints above its table ("Tue Jun 10 09:12:44 2025"): as prose it
                    // stood between the table and the sentence saying when it was taken (fresh-user finding)
                    + "|^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \\d]\\d"
                    + " \\d\\d:\\d\\d:\\d\\d \\d{4}$"
                    + "|" + PROMPT + "(?:npu-smi\\s+info\\b|nvidia-smi(?:\\s+-|\\s*$))");
    private static final Pattern LOG_LINE = Pattern.compile(
            "\\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\\s+(?:\\d{4}-)?\\d\\d-\\d\\d\\s+\\d\\d:\\d\\d:\\d\\d"
                    + "|^\\([^)]{0,80}pid=\\d+\\)"
                    + "|^\\[rank\\d+\\]:"
                    + "|^(?:[A-Za-z_][\\w]*\\.)*[A-Z]\\w*(?:Error|Exception)(?::|$)"
                    + "|^Traceback \\(most recent call last\\)|^File \".*\", line \\d+"
                    + "|(?i:out of memory\\..{0,80}tried to allocate)"
                    + "|\\d+%\\|"
                    + "|" + PROMPT + "(?:vllm\\s+serve|python3?\\s+-m\\s+vllm\\.)"
                    // PyTorch's launcher, as vLLM's torchrun examples start an engine (evidence.command.TorchrunCommand)
                    + "|" + PROMPT + "(?:torchrun|python3?\\s+-m\\s+torch\\.distributed\\.(?:run|launch))\\s");
    private static final Pattern QUOTE = Pattern.compile("^(?:\\s*>)+\\s?");

    /** The line without markdown quote markers ({@code "> "}); indentation kept. */
    static String unquoted(String raw) {
        return QUOTE.matcher(raw).replaceFirst("");
    }

    static PasteLine of(String raw) {
        String s = unquoted(raw).replace("\r", "");
        if (s.isBlank()) {
            return BLANK;
        }
        if (FENCE_LINE.matcher(s).find()) {
            return FENCE;
        }
        String t = s.strip();
        // ESC colour codes are kept in logs; they never start prose
        t = t.replaceAll("\u001B\\[[0-9;?]*[A-Za-z]", "");
        if (SMI_LINE.matcher(t).find()) {
            return SMI;
        }
        if (LOG_LINE.matcher(t).find()) {
            return LOG;
        }
        return PROSE;
    }

    /** A line that continues the output above it: indented (traceback code) or a caret marker line. */
    static boolean continues(String raw) {
        String s = unquoted(raw);
        return !s.isBlank() && (Character.isWhitespace(s.charAt(0)) || s.strip().matches("[\\^~]+"));
    }
}
