package io.hbmledger.evidence.command;

import io.hbmledger.evidence.Quantity;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A vLLM start through PyTorch's launcher: {@code torchrun --nproc-per-node=2 script.py ARGS}
 * ({@code python -m torch.distributed.run|launch} the same), as vLLM's offline examples start an
 * engine with {@code distributed_executor_backend="external_launcher"}. torchrun's own options
 * come before the script and are not vLLM's; the script's arguments are the script's, so only
 * those that are vLLM's are read: vLLM's own flag names (a script built on vLLM's argument parser,
 * {@code EngineArgs.add_cli_args}), and the names a script of vLLM's own gives them, read in its
 * source: examples/offline_inference/torchrun_dp_example.py passes {@code --tp-size},
 * {@code --pp-size} and {@code --dp-size} to {@code LLM(tensor_parallel_size=...,
 * pipeline_parallel_size=..., data_parallel_size=...)} (its {@code --model}, {@code --max-model-len}
 * and {@code --gpu-memory-utilization} carry vLLM's names already). torchrun_example.py takes no
 * arguments: its settings are in its source, and nothing is read.
 */
public final class TorchrunCommand {

    private static final Pattern START = Pattern.compile(ServeCommand.LINE_START
            + "(?:(?:\\S*/)?torchrun\\b|(?:\\S*/)?python[\\d.]*\\s+-m\\s+torch\\.distributed\\.(?:run|launch)\\b)");

    /** The script arguments' own names for vLLM's settings, by the script's file name (read in vLLM's examples). */
    private static final Map<String, Map<String, Quantity>> SCRIPTS = Map.of("torchrun_dp_example.py", Map.of(
            "tp-size", Quantity.TENSOR_PARALLEL_SIZE, "pp-size", Quantity.PIPELINE_PARALLEL_SIZE,
            "dp-size", Quantity.DATA_PARALLEL_SIZE), "torchrun_example.py", Map.of());
    /** vLLM's flag for its memory share, which the command reader leaves to the log's phrase rule. */
    private static final Pattern UTILIZATION = Pattern.compile("(?:^|\\s)--gpu[-_]memory[-_]utilization\\b");

    /**
     * A launch on one line.
     *
     * @param scriptArgs the text after the script (or {@code -m module}): the script's arguments
     * @param aliases the script's own flag names (dashed, lower case) for vLLM's settings
     * @param vllmScript whether the script is one of vLLM's own torchrun examples
     */
    record Launch(String scriptArgs, Map<String, Quantity> aliases, boolean vllmScript) {

        /** Whether the launch starts vLLM as far as the line shows: vLLM's script, or vLLM's utilization flag. */
        boolean startsVllm() {
            return vllmScript || UTILIZATION.matcher(scriptArgs).find();
        }
    }

    private TorchrunCommand() {
    }

    /** Cheap test before any regex: the line may hold a launch. */
    public static boolean mayHold(String lower) {
        return lower.contains("torchrun") || lower.contains("torch.distributed.");
    }

    /** The launch a line starts, when it names a Python script or module to run; else empty. */
    static Optional<Launch> of(String text) {
        if (!text.contains("torch")) {
            return Optional.empty(); // most shell lines: no regex
        }
        Matcher m = START.matcher(text);
        if (!m.find()) {
            return Optional.empty();
        }
        String rest = text.substring(m.end());
        List<String> words = Words.split(rest);
        int at = 0;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            at = rest.indexOf(w, at) + w.length();
            boolean module = w.equals("-m") && i + 1 < words.size();
            if (module || !w.startsWith("-") && w.endsWith(".py")) {
                String script = module ? words.get(i + 1) : w;
                at = module ? rest.indexOf(script, at) + script.length() : at;
                String name = script.substring(script.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
                return Optional.of(new Launch(rest.substring(at), SCRIPTS.getOrDefault(name, Map.of()), SCRIPTS.containsKey(name)));
            }
        }
        return Optional.empty(); // torchrun --help, or a script the paste cut off: nothing runs vLLM here
    }
}
