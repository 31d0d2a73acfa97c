package io.hbmledger.evidence.command;

import io.hbmledger.evidence.Observation;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the deployment of vLLM's offline Python API as users paste it into issues:
 * {@code llm = LLM(model="Qwen/Qwen3-0.6B", tensor_parallel_size=1, max_model_len=4096,
 * gpu_memory_utilization=0.5)}, also {@code EngineArgs(...)} / {@code AsyncEngineArgs(...)},
 * on one line or over several (the call stays open until its parenthesis closes). The keywords
 * are EngineArgs' field names (vllm/engine/arg_utils.py), the ones {@link ServeCommand} reads
 * from flags: {@code model} (value 1, text = the model; only a string literal, {@code model=path} names a
 * variable), {@code tensor_parallel_size},
 * {@code pipeline_parallel_size}, {@code data_parallel_size}, {@code max_model_len} (tokens),
 * {@code enforce_eager} (1 or 0 from {@code True}/{@code False}), {@code kv_cache_dtype_bytes}.
 * Keywords inside a nested call or dict ({@code speculative_config={"model": ...}}) are the
 * drafter's, not read. {@code gpu_memory_utilization=} is read by the log reader's phrase rule
 * on every line. Stateful per file (the open call), pure otherwise.
 */
public final class PythonEngineCall {

    /** The call's start: LLM( or (Async)EngineArgs(, not a longer name (MyLLM(, llm.generate(). */
    private static final Pattern START = Pattern.compile("(?<![\\w.])(?:vllm\\.)?(?:LLM|EngineArgs|AsyncEngineArgs)\\s*\\(");
    private static final Pattern KWARG = Pattern.compile(
            "(?<![\\w.])(?<k>model|tensor_parallel_size|pipeline_parallel_size|data_parallel_size|max_model_len"
                    + "|kv_cache_dtype|enforce_eager)\\s*=\\s*(?<v>'[^']*'|\"[^\"]*\"|[^,)\\s]+)");

    /** Parentheses open inside the call, 0 when none is open. */
    private int depth;

    /** True while a call opened on an earlier line waits for its closing parenthesis. */
    public boolean continues() {
        return depth > 0;
    }

    /** Cheap test before any regex: the line may start a call. */
    public static boolean mayStart(String text) {
        return text.contains("LLM") || text.contains("EngineArgs");
    }

    /**
     * The figures of one line of a call that starts here or goes on from the line before.
     *
     * @param text the line without log prefix
     * @param lineNo 1-based line number for the observations
     */
    public List<Observation> read(String text, int lineNo) {
        List<Observation> out = new ArrayList<>();
        int from = 0;
        if (depth == 0) {
            Matcher start = START.matcher(text);
            if (!start.find()) {
                return out;
            }
            from = start.end();
            depth = 1;
        }
        Matcher kw = KWARG.matcher(text);
        int scanned = from;
        while (depth > 0 && kw.find(scanned)) {
            depth += EngineKeywords.depthChange(text, scanned, kw.start());
            scanned = kw.end();
            // model=model_path is a Python variable, not the model's name: only a string literal names it
            boolean variable = kw.group("k").equals("model") && ServeCommand.unquote(kw.group("v")).equals(kw.group("v"));
            if (depth == 1 && !variable) {
                EngineKeywords.observe(kw.group("k"), ServeCommand.unquote(kw.group("v")), lineNo).ifPresent(out::add);
            }
            depth += EngineKeywords.depthChange(text, kw.start("v"), kw.end());
        }
        if (depth > 0) {
            depth += EngineKeywords.depthChange(text, scanned, text.length());
        }
        depth = Math.max(depth, 0);
        return out;
    }
}
