package io.hbmledger.collect;

import java.util.List;
import java.util.regex.Pattern;

/** The one line run.json keeps about a server that died while starting, and the log words that tell an out-of-memory. */
final class StartFailure {

    // torch_npu "NPU out of memory", torch "CUDA out of memory" / OutOfMemoryError, vLLM "No available
    // memory for the cache blocks" (vllm/v1/core/kv_cache_utils.py), CANN "207018"-style "out of memory" texts
    static final Pattern OUT_OF_MEMORY = Pattern.compile("(?i)out of memory|OutOfMemoryError|No available memory for the cache blocks");

    private StartFailure() {
    }

    /**
     * One line for run.json: the first line of the failure without its dangling "last lines of LOG:",
     * then the log's last lines that say why (error lines and tracebacks' last line), or its very last line.
     */
    static String describe(String message, String logTail) {
        String head = firstLine(message == null ? "" : message).strip();
        int cut = head.lastIndexOf("; last lines of ");
        String logName = cut >= 0 ? head.substring(cut + "; last lines of ".length()).replaceAll(":$", "") : null;
        if (cut >= 0) {
            head = head.substring(0, cut);
        }
        List<String> lines = logTail == null ? List.of() : logTail.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        // the exception lines themselves ("RuntimeError: ...") first; traceback frames also carry ERROR prefixes
        List<String> why = lines.stream().filter(l -> l.matches("(?i).*(\\w+(Error|Exception):|out of memory|No available memory).*")).toList();
        if (why.isEmpty()) {
            why = lines.stream().filter(l -> l.matches("(?i).*(error|exception|failed).*")).toList();
        }
        List<String> shown = why.isEmpty() ? (lines.isEmpty() ? List.of() : List.of(lines.get(lines.size() - 1)))
                : why.subList(Math.max(0, why.size() - 3), why.size());
        StringBuilder sb = new StringBuilder(head);
        if (!shown.isEmpty()) {
            sb.append("; the log says: ").append(String.join(" | ", shown));
        } else if (logName != null) {
            sb.append("; its log is empty");
        }
        if (logName != null) {
            sb.append(" (").append(logName).append(", copied to execution/").append(Executions.LOG).append(")");
        }
        return sb.toString();
    }

    static String lastLine(String s) {
        String[] lines = s.strip().split("\\R");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
