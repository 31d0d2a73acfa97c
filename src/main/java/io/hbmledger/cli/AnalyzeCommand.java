package io.hbmledger.cli;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.ledger.Attribution;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.load.BadInputException;
import io.hbmledger.load.EvidenceLoader;
import io.hbmledger.load.FileOptions;
import io.hbmledger.load.LoadRequest;
import io.hbmledger.load.LoadedRun;
import io.hbmledger.report.ExplainTextWriter;
import io.hbmledger.report.HtmlReportWriter;
import io.hbmledger.report.LedgerJsonWriter;
import io.hbmledger.report.LedgerTextWriter;
import io.hbmledger.report.ReportFile;
import io.hbmledger.report.SummaryTextWriter;
import io.hbmledger.report.TimelineBuilder;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.verdict.Finding;
import io.hbmledger.verdict.RunFacts;
import io.hbmledger.verdict.RunFactsBuilder;
import io.hbmledger.verdict.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hbm-ledger analyze RUN}: the per-device HBM ledger of a run directory or of evidence files. */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        // picocli lists a subcommand by its header (else the first description line): one sentence
        header = "Per-device HBM ledger of a run directory or of evidence files.",
        // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
        description = {"Attribute each device's memory: driver baseline, weights, KV cache, graph pool, other processes"
            + " and the residual, each with its source line and confidence. RUN is a run directory (holding run.json,"
            + " see docs/run.schema.json) or evidence files (npu-smi tables, vLLM logs, ...) described with"
            + " --tp/--dp/--devices/--moment. For a run directory, report.json (hbm-ledger/report/1) is written beside"
            + " run.json."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ledger printed (its status may still be incomplete or failed; when report.json cannot be written a warning says why)",
            "2:unusable input (bad run.json, unreadable, empty or unknown evidence); nothing written",
            "3:the run met the --fail-on level (only with --fail-on)"})
public final class AnalyzeCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "RUN", description = "a run directory, evidence files (- for standard input), or a folder of evidence files without run.json")
    List<Path> inputs;

    @Option(names = "--format", defaultValue = "text",
            description = "text (one screen: findings and a table across devices), json (hbm-ledger/report/1) or html"
                    + " (one self-contained page with charts; a run directory also gets report.html) (default: ${DEFAULT-VALUE})")
    AnalyzeFormat format;

    @Option(names = "--detail", description = "text: every ledger line with its evidence, note and arithmetic (the full view)")
    boolean detail;

    @Option(names = "--explain", paramLabel = "COMPONENT",
            description = "text: one component (e.g. kv_cache, hccl) on every device with all its evidence")
    String explain;

    @Option(names = "--tp", description = "tensor-parallel size (evidence files only; default 1)")
    Integer tp;

    @Option(names = "--dp", description = "data-parallel size (evidence files only; default 1)")
    Integer dp;

    @Option(names = "--devices", split = ",", paramLabel = "ID",
            description = "device ids in rank order, as in ASCEND_RT_VISIBLE_DEVICES, at most one per rank (evidence files only;"
                    + " default 0..TPxDPxPP-1)")
    List<Integer> devices;

    @Option(names = "--moment", paramLabel = "FILE=MOMENT",
            description = "when a file was taken: baseline, ready, load, after, startup, oom, static (evidence files only)")
    Map<String, String> moments = new LinkedHashMap<>();

    @Option(names = "--file-device", paramLabel = "FILE=ID",
            description = "the logical device a file's figures concern, e.g. the device of an out-of-memory log (evidence files only; as evidence[].device in run.json)")
    Map<String, Integer> fileDevices = new LinkedHashMap<>();

    @Option(names = "--server-pid", split = ",", paramLabel = "PID",
            description = "pids of the serving processes, to tell them from other processes in npu-smi's table")
    List<Long> serverPids;

    @Option(names = "--model", description = "model name for the heading (evidence files only)")
    String model;

    @Option(names = "--instant", paramLabel = "NAME=TIME",
            description = "a wall-clock instant of the run, to read msprof series at: NAME one of baseline, start, ready,"
                    + " load_start, load_end, after, stop, export, copy; TIME ISO-8601 with offset or Z, e.g."
                    + " ready=2026-11-29T21:03:04+08:00 (evidence files only; a run directory takes them from run.json moments)")
    Map<String, String> instants = new LinkedHashMap<>();

    @Option(names = "--model-dir", paramLabel = "DIR",
            description = "the checkpoint vLLM served: model directory (config.json, *.safetensors, index), a weights manifest"
                + " saved by `weights --save-manifest`, or one .safetensors file. Its per-device share is shown next to vLLM's"
                + " weights and its KV bytes per token check vLLM's KV figure. Overrides run.json's deployment.model_dir.")
    Path modelDir;

    @Option(names = "--pp", description = "pipeline-parallel size, for the checkpoint's per-device share and the rank of a PP worker's log lines (evidence files only; default 1)")
    Integer pp;

    @Option(names = "--ep", description = "expert parallelism was on (--enable-expert-parallel), for the checkpoint's share (evidence files only)")
    boolean ep;

    @Option(names = "--dtype", description = "vLLM --dtype, for the checkpoint's per-device share (evidence files only; default auto)")
    String dtype;

    @Option(names = "--kv-cache-dtype", description = "vLLM --kv-cache-dtype, for KV bytes per token (evidence files only; default auto)")
    String kvCacheDtype;

    @Option(names = "--all-devices", description = "the --detail view with every device's full ledger (--detail alone, above 4 devices: a summary and the notable devices)")
    boolean allDevices;

    @Option(names = "--no-write", description = "do not write report.json into the run directory")
    boolean noWrite;

    @Option(names = "--utilizations", split = ",", paramLabel = "U",
            description = "gpu_memory_utilization of every vLLM instance sharing the devices, in start order (e.g."
                    + " 0.2,0.45,0.7,0.9), when the run does not hold all their logs: the findings check that the shares"
                    + " fit side by side; the instances whose logs the run holds are matched by their own value")
    List<Double> utilizations = new java.util.ArrayList<>();

    @Option(names = "--fail-on", paramLabel = "LEVEL",
            description = "exit 3 when the run is at least this bad: failed (status failed or an error finding),"
                    + " incomplete (also status incomplete), warn (also a warn finding or a check that warns or fails);"
                    + " by default the exit code does not depend on the findings")
    FailOn failOn;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        try {
            return run(err);
        } catch (BadInputException | EvidenceException e) {
            err.println("hbm-ledger: " + e.getMessage());
            for (Path in : inputs) {
                if (java.nio.file.Files.isDirectory(in)) {
                    ReportFile.setAside(in, !noWrite).ifPresent(m -> err.println("hbm-ledger: " + m));
                }
            }
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
    }

    private int run(PrintWriter err) throws IOException, EvidenceException, BadInputException {
        if (inputs.size() == 1 && io.hbmledger.load.NodeRuns.isMultiNode(inputs.get(0))) {
            NodeRunAnalysis.Result r = NodeRunAnalysis.run(inputs.get(0), format, allDevices, noWrite,
                    UtilizationFlags.figures(utilizations), err);
            PrintWriter out = spec.commandLine().getOut();
            out.print(r.shown());
            out.flush();
            err.flush();
            return failOn != null && failOn.met(r.ledger(), r.findings()) ? Main.EXIT_FAIL_ON : 0;
        }
        FileOptions files = new FileOptions(tp, dp, pp, ep, dtype, kvCacheDtype, devices, moments, fileDevices, model, instants);
        LoadedRun run = new EvidenceLoader(w -> err.println("hbm-ledger: warning: " + w))
                .load(new LoadRequest(inputs, files, serverPids, modelDir));
        RunDirectory runDir = run.runDir();
        Layout layout = run.evidence().layout();
        Ledger ledger = Attribution.standard().attribute(run.evidence()).withNotes(run.notes());
        if (runDir != null) {
            ledger = ledger.withCollection(runDir.manifest().status(), runDir.manifest().incompleteReasons());
        }
        RunFacts facts = RunFactsBuilder.build(run.evidence(), ledger, UtilizationFlags.figures(utilizations));
        List<Finding> findings = Verdict.findings(facts);
        if (explain != null && !ExplainTextWriter.components(ledger).contains(explain)) {
            err.println("hbm-ledger: --explain " + explain + ": no such component in this ledger; it has "
                    + String.join(", ", ExplainTextWriter.components(ledger)));
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
        boolean write = runDir != null && !noWrite;
        // Jackson is loaded only when JSON is shown or written: a text run of files skips its start-up
        String json = format == AnalyzeFormat.json || write ? new LedgerJsonWriter().toJson(ledger, findings, layout, run.runName()) : null;
        String source = runDir == null ? null : runDir.manifest().source();
        boolean html = format == AnalyzeFormat.html || write;
        String page = html ? new HtmlReportWriter().toHtml(ledger, findings, layout, run.runName(), source,
                TimelineBuilder.build(run.evidence(), ledger, runDir == null ? Map.of() : runDir.manifest().moments()),
                HtmlReportWriter.budgets(facts)) : null;
        String shown = switch (format) {
            case json -> json;
            case html -> page;
            case text -> text(ledger, findings, layout, run.runName(), source);
        };
        if (write) {
            // exit stays 0 when report.json cannot be written: the warning says why
            ReportFile.write(runDir.dir(), json).ifPresent(w -> err.println("hbm-ledger: warning: " + w));
            ReportFile.write(runDir.dir(), HtmlReportWriter.FILE_NAME, page).ifPresent(w -> err.println("hbm-ledger: warning: " + w));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(shown);
        out.flush();
        err.flush();
        return failOn != null && failOn.met(ledger, findings) ? Main.EXIT_FAIL_ON : 0;
    }

    private String text(Ledger ledger, List<Finding> findings, Layout layout, String runName, String source) {
        StringWriter buf = new StringWriter();
        PrintWriter w = new PrintWriter(buf);
        if (explain != null) {
            new ExplainTextWriter().write(ledger, explain, runName, w);
        } else if (detail || allDevices) {
            new LedgerTextWriter(allDevices).write(ledger, findings, layout, runName, source, w);
        } else {
            new SummaryTextWriter().write(ledger, findings, layout, runName, source, w);
        }
        w.flush();
        return buf.toString();
    }
}
