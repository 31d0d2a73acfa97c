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
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code hbm-ledger analyze RUN}: the per-device HBM ledger of a run directory or of evidence files.
 * Its model is built by hand ({@link AnalyzeSpec}).
 */
public final class AnalyzeCommand implements Callable<Integer> {

    private CommandSpec spec;
    private AnalyzeOptions o;

    /** The verb's model, with this command as the object it runs. */
    static CommandSpec commandSpec() {
        AnalyzeCommand command = new AnalyzeCommand();
        command.spec = AnalyzeSpec.build(command);
        return command.spec;
    }

    @Override
    public Integer call() throws IOException {
        o = AnalyzeSpec.options(spec);
        PrintWriter err = spec.commandLine().getErr();
        try {
            return run(err);
        } catch (BadInputException | EvidenceException e) {
            err.println("hbm-ledger: " + e.getMessage());
            for (Path in : o.inputs()) {
                if (java.nio.file.Files.isDirectory(in)) {
                    ReportFile.setAside(in, !o.noWrite()).ifPresent(m -> err.println("hbm-ledger: " + m));
                }
            }
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
    }

    private int run(PrintWriter err) throws IOException, EvidenceException, BadInputException {
        if (o.explain() != null && o.format() != AnalyzeFormat.text) {
            // it was ignored without a word: the JSON or HTML report came out as if it were not given
            err.println("hbm-ledger: --explain " + o.explain() + " shows one component as text, not with --format "
                    + o.format() + ": leave out --format (text is the default), or read the component's lines in the "
                    + o.format() + " report, which holds every component");
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
        if (o.inputs().size() == 1 && io.hbmledger.load.NodeRuns.isMultiNode(o.inputs().get(0))) {
            NodeRunAnalysis.Result r = NodeRunAnalysis.run(o.inputs().get(0), o.format(), o.allDevices(), o.noWrite(),
                    UtilizationFlags.figures(o.utilizations()), err);
            PrintWriter out = spec.commandLine().getOut();
            out.print(r.shown());
            out.flush();
            err.flush();
            return o.failOn() != null && o.failOn().met(r.ledger(), r.findings()) ? Main.EXIT_FAIL_ON : 0;
        }
        FileOptions files = new FileOptions(o.tp(), o.dp(), o.pp(), o.ep(), o.dtype(), o.kvCacheDtype(), o.devices(),
                o.moments(), o.fileDevices(), o.model(), o.instants());
        LoadedRun run = new EvidenceLoader(w -> err.println("hbm-ledger: warning: " + w))
                .load(new LoadRequest(o.inputs(), files, o.serverPids(), o.modelDir()));
        RunDirectory runDir = run.runDir();
        Layout layout = run.evidence().layout();
        Ledger ledger = Attribution.standard().attribute(run.evidence()).withNotes(run.notes());
        if (runDir != null) {
            ledger = ledger.withCollection(runDir.manifest().status(), runDir.manifest().incompleteReasons());
        }
        RunFacts facts = RunFactsBuilder.build(run.evidence(), ledger, UtilizationFlags.figures(o.utilizations()));
        List<Finding> findings = Verdict.findings(facts);
        if (o.explain() != null && !ExplainTextWriter.components(ledger).contains(o.explain())) {
            err.println("hbm-ledger: --explain " + o.explain() + ": no such component in this ledger; it has "
                    + String.join(", ", ExplainTextWriter.components(ledger)));
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
        boolean write = runDir != null && !o.noWrite();
        // Jackson is loaded only when JSON is shown or written: a text run of files skips its start-up
        String json = o.format() == AnalyzeFormat.json || write ? new LedgerJsonWriter().toJson(ledger, findings, layout, run.runName()) : null;
        String source = runDir == null ? null : runDir.manifest().source();
        boolean html = o.format() == AnalyzeFormat.html || write;
        String page = html ? new HtmlReportWriter().toHtml(ledger, findings, layout, run.runName(), source,
                TimelineBuilder.build(run.evidence(), ledger, runDir == null ? Map.of() : runDir.manifest().moments()),
                HtmlReportWriter.budgets(facts)) : null;
        String shown = switch (o.format()) {
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
        return o.failOn() != null && o.failOn().met(ledger, findings) ? Main.EXIT_FAIL_ON : 0;
    }

    private String text(Ledger ledger, List<Finding> findings, Layout layout, String runName, String source) {
        StringWriter buf = new StringWriter();
        PrintWriter w = new PrintWriter(buf);
        if (o.explain() != null) {
            new ExplainTextWriter().write(ledger, o.explain(), runName, w);
        } else if (o.detail() || o.allDevices()) {
            new LedgerTextWriter(o.allDevices()).write(ledger, findings, layout, runName, source, w);
        } else {
            new SummaryTextWriter().write(ledger, findings, layout, runName, source, w);
        }
        w.flush();
        return buf.toString();
    }
}
