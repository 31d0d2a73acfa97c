package io.hbmledger.cli;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.report.EvidenceJsonWriter;
import io.hbmledger.report.EvidenceTextWriter;
import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hbm-ledger evidence FILE...}: what was read from each file, before attribution. */
@Command(name = "evidence", mixinStandardHelpOptions = true,
        header = "What hbm-ledger reads from each evidence file, before attribution.",
        // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
        description = {"Print what hbm-ledger reads from each evidence file, before any attribution.",
            "Formats are recognised by content: npu-smi, nvidia-smi, vLLM/vllm-ascend logs, msprof and torch_npu exports"
                + " (CSV, SQLite), safetensors headers and index files, Git LFS pointers, config.json. JSON output follows"
                + " hbm-ledger/evidence/1."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every file was read", "2:a file was unreadable, empty or of unknown format (the others are still printed)"})
public final class EvidenceCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "evidence files")
    List<Path> files;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE})")
    OutputFormat format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        EvidenceReaders readers = EvidenceReaders.all();
        List<EvidenceFile> results = new ArrayList<>();
        boolean unusable = false;
        PrintWriter err = spec.commandLine().getErr();
        for (Path file : files) {
            String shown = file.toString();
            try {
                EvidenceFile f = readers.read(file, shown);
                results.add(f);
                if (!f.usable()) {
                    unusable = true;
                    f.warnings().forEach(w -> err.println("hbm-ledger: " + shown + ": " + w));
                }
            } catch (EvidenceException e) {
                unusable = true;
                err.println("hbm-ledger: " + e.getMessage());
                results.add(new EvidenceFile(shown, EvidenceFormat.UNKNOWN, List.of(), List.of(e.getMessage())));
            } catch (IOException e) {
                unusable = true;
                err.println("hbm-ledger: " + shown + ": " + FileProblem.cannotRead(e));
                results.add(new EvidenceFile(shown, EvidenceFormat.UNKNOWN, List.of(),
                        List.of(FileProblem.cannotRead(e))));
            }
        }
        // Render fully before printing, so a failure never leaves half a document on stdout.
        StringWriter buf = new StringWriter();
        if (format == OutputFormat.json) {
            new EvidenceJsonWriter().write(results, buf);
        } else {
            new EvidenceTextWriter().write(results, new PrintWriter(buf));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(buf);
        out.flush();
        err.flush();
        return unusable ? Main.EXIT_BAD_INPUT : 0;
    }
}
