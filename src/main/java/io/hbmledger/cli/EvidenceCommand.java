package io.hbmledger.cli;

import io.hbmledger.load.EvidenceListing;
import io.hbmledger.report.EvidenceJsonWriter;
import io.hbmledger.report.EvidenceTextWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@code hbm-ledger evidence FILE...}: what was read from each file, before attribution. Its
 * command model is built by hand ({@link #commandSpec}) rather than from annotations: a run of
 * this verb on a large msprof export is timed against a C scan (issue 17), and reading picocli's
 * annotations was ~40 ms of its start (the JDK generates a proxy class per annotation type).
 */
public final class EvidenceCommand implements Callable<Integer> {

    private CommandSpec spec;

    /** The verb's model, with this command as the object it runs. */
    static CommandSpec commandSpec() {
        EvidenceCommand command = new EvidenceCommand();
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name("evidence");
        spec.usageMessage()
                .header("What hbm-ledger reads from each evidence file, before attribution.")
                // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
                .description("Print what hbm-ledger reads from each evidence file, before any attribution.",
                        "Formats are recognised by content: npu-smi, nvidia-smi, vLLM/vllm-ascend logs, msprof and torch_npu"
                                + " exports (CSV, SQLite), safetensors headers and index files, Git LFS pointers, config.json. JSON"
                                + " output follows hbm-ledger/evidence/1.",
                        "Pasted text (an issue's markdown, a terminal session) is read block by block: fenced blocks and output"
                                + " lines in the prose go to the reader that knows them, each value citing its line in the paste,"
                                + " and the output lists which lines were read as what.")
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(exitCodes());
        spec.addPositional(PositionalParamSpec.builder().arity("1..*").required(true).paramLabel("FILE")
                .type(List.class).auxiliaryTypes(Path.class)
                .description("evidence files; - reads standard input; a directory is listed as analyze lists it: a run"
                        + " directory by its run.json, an msprof PROF_* or torch_npu *_ascend_pt directory (or one holding some)"
                        + " by the files exported under it, any other folder by its files")
                .build());
        spec.addOption(OptionSpec.builder("--format").type(OutputFormat.class).defaultValue("text").paramLabel("<format>")
                .description("text or json (default: ${DEFAULT-VALUE})").build());
        StandardOptions.addTo(spec);
        command.spec = spec;
        return spec;
    }

    private static Map<String, String> exitCodes() {
        Map<String, String> codes = new LinkedHashMap<>();
        codes.put("0", "every file was read; one that holds no evidence (empty, a table cut off before its rows, a paste"
                + " of prose only) is listed with 0 observations and named on stderr: \"no evidence found in FILE\"");
        codes.put("1", "the output could not be written to standard output (a full disk): said on stderr");
        codes.put("2", "a file could not be read, is of no known format or is malformed (an msprof CSV with its header"
                + " and no data row included; named on stderr; nothing is printed on stdout, so that a script never"
                + " takes a partial listing for the whole)");
        return codes;
    }

    @Override
    public Integer call() throws IOException {
        List<Path> files = spec.positionalParameters().get(0).getValue();
        OutputFormat format = spec.findOption("--format").getValue();
        EvidenceListing listing = EvidenceListing.read(files);
        PrintWriter err = spec.commandLine().getErr();
        listing.problems().forEach(p -> err.println("hbm-ledger: " + p));
        listing.noEvidence().forEach(p -> err.println("hbm-ledger: " + p));
        if (!listing.allUsable()) {
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
        // Render fully before printing, so a failure never leaves half a document on stdout.
        PrintWriter out = spec.commandLine().getOut();
        if (format == OutputFormat.json) {
            Stdout.writeSafeDocument(out, new EvidenceJsonWriter().utf8(listing.files()));
        } else {
            StringWriter buf = new StringWriter();
            new EvidenceTextWriter().write(listing.files(), new PrintWriter(buf));
            out.print(buf);
            out.flush();
        }
        err.flush();
        return 0;
    }

}
