package io.hbmledger.cli;

import io.hbmledger.load.EvidenceListing;
import io.hbmledger.report.EvidenceJsonWriter;
import io.hbmledger.report.EvidenceTextWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code hbm-ledger evidence FILE...}: what was read from each file, before attribution. */
@Command(name = "evidence", mixinStandardHelpOptions = true,
        header = "What hbm-ledger reads from each evidence file, before attribution.",
        // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
        description = {"Print what hbm-ledger reads from each evidence file, before any attribution.",
            "Formats are recognised by content: npu-smi, nvidia-smi, vLLM/vllm-ascend logs, msprof and torch_npu exports"
                + " (CSV, SQLite), safetensors headers and index files, Git LFS pointers, config.json. JSON output follows"
                + " hbm-ledger/evidence/1.",
            "Pasted text (an issue's markdown, a terminal session) is read block by block: fenced blocks and output"
                + " lines in the prose go to the reader that knows them, each value citing its line in the paste, and the"
                + " output lists which lines were read as what."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every file was read", "2:a file was unreadable, empty or of unknown format (named on stderr; nothing is printed on stdout,"
            + " so that a script never takes a partial listing for the whole)"})
public final class EvidenceCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "evidence files; - reads standard input;"
            + " an msprof PROF_* or torch_npu *_ascend_pt directory (or one holding some) reads the files exported under it")
    List<Path> files;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE})")
    OutputFormat format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        EvidenceListing listing = EvidenceListing.read(files);
        PrintWriter err = spec.commandLine().getErr();
        listing.problems().forEach(p -> err.println("hbm-ledger: " + p));
        if (!listing.allUsable()) {
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
        // Render fully before printing, so a failure never leaves half a document on stdout.
        StringWriter buf = new StringWriter();
        if (format == OutputFormat.json) {
            new EvidenceJsonWriter().write(listing.files(), buf);
        } else {
            new EvidenceTextWriter().write(listing.files(), new PrintWriter(buf));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(buf);
        out.flush();
        err.flush();
        return 0;
    }

}
