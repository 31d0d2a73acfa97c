package io.hbmledger.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The model of {@code hbm-ledger analyze}, built by hand as {@code evidence}'s is: reading picocli's
 * annotations made the JDK generate a proxy class per annotation type, ~55 ms of every analyze
 * start (measured, issue 17). Names, labels and words are those the annotations had; picocli
 * writes the help from them.
 */
final class AnalyzeSpec {

    private AnalyzeSpec() {
    }

    static CommandSpec build(Object command) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name("analyze");
        spec.usageMessage()
                // picocli lists a subcommand by its header (else the first description line): one sentence
                .header("Per-device HBM ledger of a run directory or of evidence files.")
                // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
                .description("Attribute each device's memory: driver baseline, weights, KV cache, graph pool, other processes"
                        + " and the residual, each with its source line and confidence. RUN is a run directory (holding run.json,"
                        + " see docs/run.schema.json) or evidence files (npu-smi tables, vLLM logs, ...) described with"
                        + " --tp/--dp/--devices/--moment. For a run directory, report.json (hbm-ledger/report/1) is written beside"
                        + " run.json.")
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(exitCodes());
        spec.addPositional(PositionalParamSpec.builder().arity("1..*").required(true).paramLabel("RUN")
                .type(List.class).auxiliaryTypes(Path.class)
                .description("a run directory, evidence files (- for standard input), or a folder of evidence files without run.json")
                .build());
        spec.addOption(OptionSpec.builder("--format").type(AnalyzeFormat.class).defaultValue("text").paramLabel("<format>")
                .description("text (one screen: findings and a table across devices), json (hbm-ledger/report/1) or html"
                        + " (one self-contained page with charts; a run directory also gets report.html) (default: ${DEFAULT-VALUE})")
                .build());
        flag(spec, "--detail", "text: every ledger line with its evidence, note and arithmetic (the full view)");
        value(spec, "--explain", String.class, "COMPONENT",
                "text: one component (e.g. kv_cache, hccl) on every device with all its evidence");
        value(spec, "--tp", Integer.class, "<tp>", "tensor-parallel size (evidence files only; default 1)");
        value(spec, "--dp", Integer.class, "<dp>", "data-parallel size (evidence files only; default 1)");
        list(spec, "--devices", Integer.class, "ID", "device ids in rank order, as in ASCEND_RT_VISIBLE_DEVICES, at most one"
                + " per rank (evidence files only; default 0..TPxDPxPP-1)");
        map(spec, "--moment", String.class, "FILE=MOMENT",
                "when a file was taken: baseline, ready, load, after, startup, oom, static (evidence files only)");
        map(spec, "--file-device", Integer.class, "FILE=ID", "the logical device a file's figures concern, e.g. the device"
                + " of an out-of-memory log (evidence files only; as evidence[].device in run.json)");
        list(spec, "--server-pid", Long.class, "PID", "pids of the serving processes, to tell them from other processes in"
                + " npu-smi's table");
        value(spec, "--model", String.class, "<model>", "model name for the heading (evidence files only)");
        map(spec, "--instant", String.class, "NAME=TIME", "a wall-clock instant of the run, to read msprof series at: NAME"
                + " one of baseline, start, ready, load_start, load_end, after, stop, export, copy; TIME ISO-8601 with offset"
                + " or Z, e.g. ready=2026-11-29T21:03:04+08:00 (evidence files only; a run directory takes them from run.json"
                + " moments)");
        value(spec, "--model-dir", Path.class, "DIR", "the checkpoint vLLM served: model directory (config.json,"
                + " *.safetensors, index), a weights manifest saved by `weights --save-manifest`, or one .safetensors file."
                + " Its per-device share is shown next to vLLM's weights and its KV bytes per token check vLLM's KV figure."
                + " Overrides run.json's deployment.model_dir.");
        value(spec, "--pp", Integer.class, "<pp>", "pipeline-parallel size, for the checkpoint's per-device share and the"
                + " rank of a PP worker's log lines (evidence files only; default 1)");
        flag(spec, "--ep", "expert parallelism was on (--enable-expert-parallel), for the checkpoint's share (evidence"
                + " files only)");
        value(spec, "--dtype", String.class, "<dtype>",
                "vLLM --dtype, for the checkpoint's per-device share (evidence files only; default auto)");
        value(spec, "--kv-cache-dtype", String.class, "<kvCacheDtype>",
                "vLLM --kv-cache-dtype, for KV bytes per token (evidence files only; default auto)");
        flag(spec, "--all-devices", "the --detail view with every device's full ledger (--detail alone, above 4 devices: a"
                + " summary and the notable devices)");
        flag(spec, "--no-write", "do not write report.json into the run directory");
        list(spec, "--utilizations", Double.class, "U", "gpu_memory_utilization of every vLLM instance sharing the devices,"
                + " in start order (e.g. 0.2,0.45,0.7,0.9), when the run does not hold all their logs: the findings check"
                + " that the shares fit side by side; the instances whose logs the run holds are matched by their own value");
        value(spec, "--fail-on", FailOn.class, "LEVEL", "exit 3 when the run is at least this bad: failed (status failed"
                + " or an error finding), incomplete (also status incomplete), warn (also a warn finding or a check that"
                + " warns or fails); by default the exit code does not depend on the findings");
        return StandardOptions.addTo(spec);
    }

    /** The values parsed into a model made by {@link #build}. */
    static AnalyzeOptions options(CommandSpec spec) {
        return new AnalyzeOptions(spec.positionalParameters().get(0).getValue(), get(spec, "--format"),
                flag(spec, "--detail"), get(spec, "--explain"), get(spec, "--tp"), get(spec, "--dp"),
                get(spec, "--devices"), mapOf(spec, "--moment"), mapOf(spec, "--file-device"),
                get(spec, "--server-pid"), get(spec, "--model"), mapOf(spec, "--instant"), get(spec, "--model-dir"),
                get(spec, "--pp"), flag(spec, "--ep"), get(spec, "--dtype"), get(spec, "--kv-cache-dtype"),
                flag(spec, "--all-devices"), flag(spec, "--no-write"),
                spec.findOption("--utilizations").getValue() == null ? List.of() : get(spec, "--utilizations"),
                get(spec, "--fail-on"));
    }

    private static Map<String, String> exitCodes() {
        Map<String, String> codes = new LinkedHashMap<>();
        codes.put("0", "ledger printed (its status may still be incomplete or failed; when report.json cannot be written"
                + " a warning says why)");
        codes.put("1", "the ledger could not be written to standard output (a full disk): said on stderr");
        codes.put("2", "unusable input (bad run.json, unreadable, empty or unknown evidence); nothing written");
        codes.put("3", "the run met the --fail-on level (only with --fail-on)");
        return codes;
    }

    private static void flag(CommandSpec spec, String name, String description) {
        spec.addOption(OptionSpec.builder(name).type(boolean.class).description(description).build());
    }

    private static void value(CommandSpec spec, String name, Class<?> type, String label, String description) {
        spec.addOption(OptionSpec.builder(name).type(type).paramLabel(label).description(description).build());
    }

    private static void list(CommandSpec spec, String name, Class<?> element, String label, String description) {
        spec.addOption(OptionSpec.builder(name).type(List.class).auxiliaryTypes(element).splitRegex(",")
                .paramLabel(label).description(description).build());
    }

    private static void map(CommandSpec spec, String name, Class<?> value, String label, String description) {
        spec.addOption(OptionSpec.builder(name).type(Map.class).auxiliaryTypes(String.class, value)
                .paramLabel(label).description(description).build());
    }

    @SuppressWarnings("unchecked")
    private static <T> T get(CommandSpec spec, String name) {
        return (T) spec.findOption(name).getValue();
    }

    private static boolean flag(CommandSpec spec, String name) {
        return Boolean.TRUE.equals(spec.findOption(name).getValue());
    }

    /** A map option's entries in the order given; empty when the option is absent. */
    private static <V> Map<String, V> mapOf(CommandSpec spec, String name) {
        Map<String, V> given = get(spec, name);
        return given == null ? new LinkedHashMap<>() : new LinkedHashMap<>(given);
    }
}
