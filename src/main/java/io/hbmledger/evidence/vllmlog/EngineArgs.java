package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.command.EngineKeywords;
import io.hbmledger.evidence.command.ServeCommand;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The deployment vLLM states in its own start-up records, as observations of the segment's line:
 * <ul>
 *   <li>vllm/entrypoints/openai/api_server.py {@code "vLLM API server version %s"}, and
 *       vllm/engine/llm_engine.py / vllm/v1/engine/core.py {@code "Initializing a V1 LLM engine
 *       (v%s) with config: %s"} (V0: {@code "Initializing an LLM engine (v%s)"}, later {@code "a V0
 *       LLM engine"}): {@code vllm_version} (value 1, text = the version) and {@code engine_version}
 *       (value 0 or 1, text {@code V0}/{@code V1}; the version-less phrase is V0);</li>
 *   <li>the arguments, {@code "non-default args: {'model': 'M', 'tensor_parallel_size': 2, ...}"}
 *       (a Python dict, v0.9+), {@code "args: Namespace(model='M', tensor_parallel_size=2, ...)"}
 *       (earlier), and the engine config line ({@code model='M', ..., max_seq_len=4096, ...,
 *       tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, ...,
 *       enforce_eager=False, kv_cache_dtype=auto}): {@code model}, {@code tensor_parallel_size},
 *       {@code pipeline_parallel_size}, {@code data_parallel_size}, {@code max_model_len} (the
 *       config writes it {@code max_seq_len}), {@code enforce_eager} (1/0),
 *       {@code kv_cache_dtype_bytes}; the engine config's {@code device_config=D}: {@code device_type}
 *       (text = D);</li>
 *   <li>vllm/platforms/__init__.py {@code "Automatically detected platform cuda."}: {@code device_type}
 *       (text = the platform).</li>
 * </ul>
 * {@code gpu_memory_utilization} in the same records is read by the phrase rules.
 */
final class EngineArgs {

    private static final Pattern VERSION = Pattern.compile(
            "(?i)vLLM API server version\\s+v?(?<api>\\d[\\w.+-]*)"
                    + "|Initializing an? (?:(?<gen>V[01]) )?LLM engine(?: \\(v(?<eng>[^)]+)\\))?");
    private static final Pattern ARG = Pattern.compile(
            "(?<![\\w.])['\"]?(?<k>model|tensor_parallel_size|pipeline_parallel_size|data_parallel_size|data_parallel_rank|max_model_len"
                    + "|max_seq_len|kv_cache_dtype|enforce_eager)['\"]?\\s*[:=]\\s*(?<v>'[^']*'|\"[^\"]*\"|[^,)}\\s]+)");
    /**
     * The engine config's {@code device_config=cuda} (V0 llm_engine.py writes {@code device_config=%s}
     * with the torch device; V1's VllmConfig string the same): the device type, {@code npu} under
     * vllm-ascend.
     */
    private static final Pattern DEVICE_CONFIG = Pattern.compile("\\bdevice_config=([A-Za-z]+)\\b");
    /**
     * vllm/platforms/__init__.py's {@code "Automatically detected platform %s."} (v0.8+, the first
     * line of most logs): the built-in platform's name, {@code cuda}, {@code rocm}, {@code xpu},
     * {@code tpu}, {@code cpu}...; an out-of-tree platform (vllm-ascend) is announced by another line.
     */
    private static final Pattern PLATFORM = Pattern.compile("(?i)\\bAutomatically detected platform ([A-Za-z]+)\\.");
    /** Only records that list arguments or the engine config. */
    private static final Pattern ARG_RECORD = Pattern.compile("(?i)non-default args:\\s*\\{|\\bargs:\\s*Namespace\\(|LLM engine.*?with config:");


    private EngineArgs() {
    }

    /** Cheap test before any regex: the segment may hold a version or argument record. */
    static boolean mayHold(String lower) {
        return lower.contains("args") || lower.contains("llm engine") || lower.contains("api server version")
                || lower.contains("detected platform");
    }

    /** value 1, text = the device type as printed, lower case (evidence-v1). */
    static Observation deviceType(String printed, int lineNo, LogSegment seg) {
        return VllmLogParser.context(Observation.value(Quantity.DEVICE_TYPE, 1, lineNo,
                printed.toLowerCase(java.util.Locale.ROOT)), seg);
    }

    static void read(LogSegment seg, int lineNo, List<Observation> out) {
        String msg = seg.message();
        Matcher v = VERSION.matcher(msg);
        if (v.find()) {
            String version = v.group("api") != null ? v.group("api") : v.group("eng");
            if (version != null) {
                out.add(VllmLogParser.context(Observation.value(Quantity.VLLM_VERSION, 1, lineNo, version), seg));
            }
            if (v.group("api") == null) {
                String gen = v.group("gen") == null ? "V0" : v.group("gen").toUpperCase();
                out.add(VllmLogParser.context(Observation.value(Quantity.ENGINE_VERSION, gen.equals("V1") ? 1 : 0, lineNo, gen), seg));
            }
        }
        Matcher platform = PLATFORM.matcher(msg);
        if (platform.find()) {
            out.add(deviceType(platform.group(1), lineNo, seg));
            return;
        }
        Matcher record = ARG_RECORD.matcher(msg);
        if (!record.find()) {
            return;
        }
        Matcher device = DEVICE_CONFIG.matcher(msg);
        if (device.find(record.end())) {
            out.add(deviceType(device.group(1), lineNo, seg));
        }
        Matcher a = ARG.matcher(msg);
        a.region(record.end(), msg.length());
        int depth = 0;
        int scanned = record.end();
        while (a.find()) {
            // only the record's own keys: a nested speculative_config {'model': draft, 'max_model_len': ..}
            // or SpeculativeConfig(model=...) names the draft model, not the deployment
            depth += EngineKeywords.depthChange(msg, scanned, a.start());
            scanned = a.start();
            if (depth != 0) {
                continue;
            }
            String key = a.group("k");
            Observation o = EngineKeywords.observe(key, ServeCommand.unquote(a.group("v")), lineNo).orElse(null);
            if (o != null) {
                out.add(VllmLogParser.context(o, seg));
            }
        }
    }
}
