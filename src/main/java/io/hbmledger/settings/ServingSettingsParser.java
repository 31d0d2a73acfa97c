package io.hbmledger.settings;

import io.hbmledger.ledger.Source;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the serving settings a vLLM / vllm-ascend server log states. Pure: lines in, settings
 * out.
 *
 * <p>Lines followed (vLLM 0.6 - 0.11, vllm-ascend 0.7 - 0.11, as in the corpus logs):
 * <ul>
 * <li>{@code Initializing a V1 LLM engine (v0.9.1) with config: model='...', dtype=torch.bfloat16,
 *     max_seq_len=128, ..., tensor_parallel_size=1, pipeline_parallel_size=1, ..., enforce_eager=True,
 *     kv_cache_dtype=auto, ...} ({@code v1/engine/core.py}); V0 prints {@code Initializing an LLM engine
 *     (v0.6.4) with config: ...} ({@code engine/llm_engine.py}). The first such line is the served
 *     model's: a speculative drafter's settings come later.</li>
 * <li>{@code non-default args: {'max_model_len': 128, 'gpu_memory_utilization': 0.8, ...}}
 *     ({@code entrypoints/utils.py}, from 0.9): the arguments the user changed.</li>
 * <li>{@code vLLM API server version 0.11.0}; {@code Chunked prefill is enabled with max_num_batched_tokens=2048.}</li>
 * </ul>
 * The engine config line wins over the argument dict, which wins over the other lines; within one
 * kind the first line wins.
 */
public final class ServingSettingsParser {

    private static final Pattern ENGINE = Pattern.compile(
            "Initializing (?:a (V1) LLM engine|an LLM engine) \\((v?[0-9][^)]*)\\) with config: (.*)");
    private static final Pattern CONFIG_PAIR = Pattern.compile("\\b([a-z_]+)=('[^']*'|[^,\\s]+)");
    private static final Pattern ARGS = Pattern.compile("non-default args: (\\{.*)");
    private static final Pattern ARG_PAIR = Pattern.compile("'([a-z_]+)': ('[^']*'|\\{|[^,}]+)");
    private static final Pattern SERVER_VERSION = Pattern.compile("vLLM API server version (v?[0-9][0-9A-Za-z.+-]*)");
    private static final Pattern BATCHED = Pattern.compile("max_num_batched_tokens=(\\d+)");

    private ServingSettingsParser() {
    }

    /**
     * @param file the log as cited
     * @param lines the log's lines, first line is line 1
     */
    public static ServingSettings parse(String file, List<String> lines) {
        Map<Setting, SettingValue> engine = new EnumMap<>(Setting.class);
        Map<Setting, SettingValue> args = new EnumMap<>(Setting.class);
        Map<Setting, SettingValue> other = new EnumMap<>(Setting.class);
        boolean engineSeen = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int n = i + 1;
            Matcher e = ENGINE.matcher(line);
            if (!engineSeen && e.find()) {
                engineSeen = true;
                Source src = new Source(file, n, e.group(0).length() > 120 ? e.group(0).substring(0, 120) + "..." : e.group(0));
                engine.put(Setting.ENGINE, new SettingValue(e.group(1) != null ? "V1" : "V0", src));
                engine.put(Setting.ENGINE_VERSION, new SettingValue(e.group(2), src));
                Matcher p = CONFIG_PAIR.matcher(e.group(3));
                while (p.find()) {
                    put(engine, p.group(1), p.group(2), file, n);
                }
                continue;
            }
            Matcher a = ARGS.matcher(line);
            if (a.find()) {
                Matcher p = ARG_PAIR.matcher(a.group(1));
                while (p.find()) {
                    if (!p.group(2).equals("{")) {
                        put(args, p.group(1), p.group(2), file, n);
                    } else if (p.group(1).equals("speculative_config")) {
                        args.putIfAbsent(Setting.SPECULATIVE_CONFIG, new SettingValue("set", new Source(file, n, "'speculative_config': {")));
                    }
                }
                continue;
            }
            Matcher v = SERVER_VERSION.matcher(line);
            if (v.find()) {
                other.putIfAbsent(Setting.ENGINE_VERSION, new SettingValue(v.group(1), new Source(file, n, v.group(0))));
            }
            Matcher b = BATCHED.matcher(line);
            if (b.find()) {
                other.putIfAbsent(Setting.MAX_NUM_BATCHED_TOKENS, new SettingValue(b.group(1), new Source(file, n, b.group(0))));
            }
        }
        return new ServingSettings(engine).orElse(new ServingSettings(args)).orElse(new ServingSettings(other));
    }

    private static void put(Map<Setting, SettingValue> into, String key, String raw, String file, int line) {
        Setting s = Setting.byKey(key);
        if (s == null || into.containsKey(s)) {
            return;
        }
        String value = raw.strip();
        if (value.startsWith("'") && value.endsWith("'") && value.length() >= 2) {
            value = value.substring(1, value.length() - 1);
        }
        if (s == Setting.SPECULATIVE_CONFIG && (value.equals("None") || value.isEmpty())) {
            return;
        }
        if (s == Setting.SPECULATIVE_CONFIG) {
            value = "set";
        }
        into.put(s, new SettingValue(value, new Source(file, line, key + "=" + raw.strip())));
    }
}
