package io.hbmledger.evidence.command;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the deployment a vLLM start command gives, line by line, as pasted into an issue or
 * echoed into a log: {@code CUDA_VISIBLE_DEVICES=4,5 vllm serve M --tensor-parallel-size 2},
 * {@code python -m vllm.entrypoints.openai.api_server --model M -tp 2}, with the flags in
 * their dashed, underscored, {@code --flag=value} and short ({@code -tp}, {@code -pp},
 * {@code -dp}) forms of vLLM's argument parser (vllm/engine/arg_utils.py
 * {@code EngineArgs.add_cli_args}; FlexibleArgumentParser turns {@code _} into {@code -}).
 * A command continued with a trailing backslash goes on on the next lines. Stateful per file
 * (the continuation), pure otherwise: text in, observations out.
 *
 * <p>Observations (value unless said): {@code model} (1, text = the model as written),
 * {@code tensor_parallel_size}, {@code pipeline_parallel_size}, {@code data_parallel_size},
 * {@code max_model_len} (tokens), {@code enforce_eager} (1 or 0), {@code kv_cache_dtype_bytes}
 * (bytes per KV element of the named dtype, text = the dtype; {@code auto} follows the model's
 * dtype and gives none), {@code visible_devices} (how many devices the variable lists, text = the
 * list, component = the variable name), {@code data_parallel_size} and {@code data_parallel_rank} from
 * {@code VLLM_DP_SIZE=N} / {@code VLLM_DP_RANK=r} (component = the variable) and
 * {@code --data-parallel-rank r} ({@code -dpr}). A {@code torchrun} launch of a script is a start too,
 * its vLLM arguments read as {@link TorchrunCommand} says. {@code --gpu-memory-utilization} is not read here: the
 * log reader's phrase rule reads it on every line, command or not.
 */
public final class ServeCommand {

    /** A device list in the environment: CUDA (NVIDIA), ASCEND_RT (vllm-ascend), HIP (ROCm). */
    private static final Pattern VISIBLE = Pattern.compile(
            "(?:^|[\\s;(])(?<var>CUDA_VISIBLE_DEVICES|ASCEND_RT_VISIBLE_DEVICES|ASCEND_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES)"
                    + "=(?<v>\"[^\"]*\"|'[^']*'|[^\\s;]*)");
    /**
     * vLLM's data-parallel environment (vllm/envs.py): ParallelConfig takes VLLM_DP_SIZE and
     * VLLM_DP_RANK when no --data-parallel-size above 1 is given (offline SPMD, one process per DP
     * rank, an external launcher); as a shell assignment, or a literal in Python's
     * {@code os.environ["VLLM_DP_RANK"] = "1"}.
     */
    private static final Pattern DP_ENV = Pattern.compile(
            "(?:^|[\\s;(\\[\"'])(?<var>VLLM_DP_SIZE|VLLM_DP_RANK)(?:[\"']\\])?\\s*=\\s*[\"']?(?<v>\\d{1,6})(?![\\w.])");
    /**
     * Where a command starts: the CLI entry point or the OpenAI server module, at the start of a
     * shell line (after a prompt, {@code $ }, {@code root@host:/dir# }, {@code [root@host dir]# },
     * {@code (venv) user@host:~$ }, as the paste reader's PasteLine knows them, and environment assignments) or of a sub-command ({@code &&},
     * {@code ;}, {@code bash -c "...}); "the vllm serve flags" in prose is no command.
     */
    static final String LINE_START = "(?:^\\s*(?:(?:\\(\\S{1,40}\\)\\s+)?(?:[^\\s$#>]{1,80}|\\[[^\\]]{1,80}\\])?[$#>]\\s+)?|[;&|]\\s*|[\"'`]\\s*)(?:export\\s+)?(?:[A-Z_][A-Z0-9_]*=\\S*\\s+)*"
            + "(?:nohup\\s+|exec\\s+)?";
    private static final Pattern START = Pattern.compile(LINE_START
                    + "(?:vllm\\s+serve\\b|(?:\\S*/)?python[\\d.]*\\s+-m\\s+vllm\\.entrypoints\\.(?:openai\\.)?api_server\\b)");

    /**
     * The count settings by their snake_case name, as vLLM's args and config records write them; a
     * flag is looked up after its dashes become underscores. {@code max_seq_len} is the engine
     * config's name of max_model_len.
     */
    private static final Map<String, Quantity> COUNTS = Map.of(
            "tensor_parallel_size", Quantity.TENSOR_PARALLEL_SIZE, "tp", Quantity.TENSOR_PARALLEL_SIZE,
            "pipeline_parallel_size", Quantity.PIPELINE_PARALLEL_SIZE, "pp", Quantity.PIPELINE_PARALLEL_SIZE,
            "data_parallel_size", Quantity.DATA_PARALLEL_SIZE, "dp", Quantity.DATA_PARALLEL_SIZE,
            "data_parallel_rank", Quantity.DATA_PARALLEL_RANK, "dpr", Quantity.DATA_PARALLEL_RANK,
            "max_model_len", Quantity.MAX_MODEL_LEN, "max_seq_len", Quantity.MAX_MODEL_LEN);

    /** The count quantity of a setting name ({@code tensor_parallel_size}, {@code tensor-parallel-size}, {@code tp}), or null. */
    public static Quantity countOf(String name) {
        return COUNTS.get(name.replace('-', '_'));
    }

    private boolean open;
    private boolean modelSeen;
    /** The running command's own names for vLLM's settings (a torchrun script's, {@link TorchrunCommand}). */
    private Map<String, Quantity> aliases = Map.of();

    private boolean startedHere;

    /**
     * Whether the last line read starts a vLLM command, even one that sets nothing this reader
     * reads ({@code torchrun ... --gpu-memory-utilization 0.7}, vLLM's own torchrun example).
     */
    public boolean startedHere() {
        return startedHere;
    }

    /** True while a command continued with a trailing backslash waits for its next line. */
    public boolean continues() {
        return open;
    }

    /**
     * The figures of one line: a device list anywhere on a shell line, and the flags of a command
     * that starts on this line or goes on from the line before.
     *
     * @param text the line without log prefix
     * @param lineNo 1-based line number for the observations
     */
    public List<Observation> read(String text, int lineNo) {
        List<Observation> out = new ArrayList<>();
        // first, so that a deployment reader meets the DP rank before the devices of the same line
        Matcher dp = DP_ENV.matcher(text);
        while (dp.find()) {
            Quantity q = dp.group("var").equals("VLLM_DP_SIZE") ? Quantity.DATA_PARALLEL_SIZE : Quantity.DATA_PARALLEL_RANK;
            out.add(Observation.value(q, Integer.parseInt(dp.group("v")), lineNo, dp.group("v"))
                    .in(Context.builder().component(dp.group("var")).build()));
        }
        Matcher env = VISIBLE.matcher(text);
        while (env.find()) {
            String list = unquote(env.group("v"));
            long n = list.isBlank() ? 0 : java.util.Arrays.stream(list.split(",")).filter(s -> !s.isBlank()).count();
            out.add(Observation.value(Quantity.VISIBLE_DEVICES, n, lineNo, list).in(Context.builder().component(env.group("var")).build()));
        }
        String rest;
        Matcher start = START.matcher(text);
        java.util.Optional<TorchrunCommand.Launch> launch = java.util.Optional.empty();
        startedHere = false;
        if (start.find()) {
            rest = text.substring(start.end());
            open = true;
            modelSeen = false;
            aliases = Map.of();
            positionalModel(rest, lineNo, out, start.group().contains("serve"));
        } else if ((launch = TorchrunCommand.of(text)).isPresent()) {
            rest = launch.get().scriptArgs();
            open = true;
            modelSeen = false;
            aliases = launch.get().aliases();
            startedHere = launch.get().startsVllm();
        } else if (open) {
            rest = text;
        } else {
            return out;
        }
        String stripped = rest.stripTrailing();
        int before = out.size();
        flags(stripped.endsWith("\\") ? stripped.substring(0, stripped.length() - 1) : stripped, lineNo, out);
        // a launch whose script arguments carry vLLM's settings starts vLLM too
        startedHere |= launch.isPresent() && out.size() > before;
        open = stripped.endsWith("\\");
        return out;
    }

    /** {@code vllm serve MODEL ...}: the first word after serve, unless it is a flag. */
    private void positionalModel(String rest, int lineNo, List<Observation> out, boolean serve) {
        List<String> words = Words.split(rest);
        if (serve && !words.isEmpty() && !words.get(0).startsWith("-") && !words.get(0).equals("\\") && !shellVariable(words.get(0))) {
            out.add(Observation.value(Quantity.MODEL, 1, lineNo, words.get(0)));
            modelSeen = true;
        }
    }

    private void flags(String rest, int lineNo, List<Observation> out) {
        List<String> words = Words.split(rest);
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (!w.startsWith("-") || w.length() < 2 || Character.isDigit(w.charAt(1))) {
                continue;
            }
            String name = w.replaceFirst("^-+", "");
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            name = name.toLowerCase(Locale.ROOT).replace('_', '-');
            boolean next = value == null && i + 1 < words.size() && !words.get(i + 1).startsWith("-");
            if (name.equals("enforce-eager") || name.equals("no-enforce-eager")) {
                eager(name, value, lineNo, out);
                continue;
            }
            if (value == null && next) {
                value = words.get(i + 1);
            }
            if (value == null) {
                continue;
            }
            value = unquote(value);
            Quantity count = aliases.containsKey(name) ? aliases.get(name) : countOf(name);
            if (count != null && value.matches("\\d{1,9}")) {
                out.add(Observation.value(count, Integer.parseInt(value), lineNo, value));
            } else if (name.equals("model") && !modelSeen && !shellVariable(value)) {
                out.add(Observation.value(Quantity.MODEL, 1, lineNo, value));
                modelSeen = true;
            } else if (name.equals("kv-cache-dtype")) {
                String dtype = value;
                KvDtype.bytes(dtype).ifPresent(b -> out.add(Observation.value(Quantity.KV_CACHE_DTYPE_BYTES, b, lineNo, dtype)));
            }
        }
    }

    private static void eager(String name, String value, int lineNo, List<Observation> out) {
        boolean on = value == null || value.equalsIgnoreCase("true") || value.equals("1");
        if (value != null && !on && !value.equalsIgnoreCase("false") && !value.equals("0")) {
            return; // not a boolean: not the flag as vLLM reads it
        }
        if (name.startsWith("no-")) {
            on = !on;
        }
        out.add(Observation.value(Quantity.ENFORCE_EAGER, on ? 1 : 0, lineNo, value == null ? "--" + name : value));
    }

    /** {@code $MODEL_PATH}, {@code ${MODELS[$i]}}: the shell fills it in, so it names no model here. */
    private static boolean shellVariable(String value) {
        return value.contains("$");
    }

    /** The text inside matching single or double quotes, or the text as it is. */
    public static String unquote(String s) {
        if (s.length() >= 2 && (s.charAt(0) == '"' || s.charAt(0) == '\'') && s.charAt(s.length() - 1) == s.charAt(0)) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }
}
