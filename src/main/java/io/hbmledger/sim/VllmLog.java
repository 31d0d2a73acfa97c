package io.hbmledger.sim;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * SIMULATOR: prints log lines in vLLM's format,
 * {@code (Worker_TP0 pid=34322) INFO 05-06 20:59:57 [default_loader.py:384] message}, as in the
 * corpus logs ({@code vllm-log/vllm-38820_worker_tp0_model_loading_GiB_memory_and.log},
 * {@code vllm-ascend-5044_v1_mooncake_available_memory_bytes.log}). vLLM's logger writes to
 * stdout; uvicorn's {@code INFO:     ...} lines go to stderr, as uvicorn does.
 */
final class VllmLog {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss");

    private final PrintStream out;
    private final PrintStream err;
    private final boolean debug;
    private final long pid;
    private final Map<String, Long> pids = new ConcurrentHashMap<>();

    VllmLog(PrintStream out, PrintStream err, boolean debug, long pid) {
        this.out = out;
        this.err = err;
        this.debug = debug;
        this.pid = pid;
    }

    /** The pid printed in the prefix of {@code proc}'s lines (default: this process). */
    void pid(String proc, long procPid) {
        pids.put(proc, procPid);
    }

    void info(String proc, String where, String msg) {
        line(proc, "INFO", where, msg);
    }

    void warn(String proc, String where, String msg) {
        line(proc, "WARNING", where, msg);
    }

    void error(String proc, String where, String msg) {
        line(proc, "ERROR", where, msg);
    }

    void debug(String proc, String where, String msg) {
        if (debug) {
            line(proc, "DEBUG", where, msg);
        }
    }

    /** A line printed without logger formatting (progress bars, empty worker lines). */
    synchronized void raw(String text) {
        out.println(text);
        out.flush();
    }

    /** uvicorn's own format, on stderr: {@code (APIServer pid=N) INFO:     Started server process [N]}. */
    synchronized void uvicorn(String msg) {
        err.println("(APIServer pid=" + pid + ") INFO:     " + msg);
        err.flush();
    }

    private synchronized void line(String proc, String level, String where, String msg) {
        String prefix = proc == null ? "" : "(" + proc + " pid=" + pids.getOrDefault(proc, pid) + ") ";
        out.println(prefix + level + " " + LocalDateTime.now().format(TIME) + " [" + where + "] " + msg);
        out.flush();
    }
}
