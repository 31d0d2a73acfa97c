package io.hbmledger.cli;

import io.hbmledger.diff.Diff;
import io.hbmledger.diff.DiffOutput;
import io.hbmledger.diff.Differ;
import io.hbmledger.diff.Side;
import io.hbmledger.diff.SideReader;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.load.BadInputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hbm-ledger diff RUN_A RUN_B}: what changed between two runs, per device and component. */
@Command(name = "diff", mixinStandardHelpOptions = true,
        header = "Two runs side by side: per device and component A, B and the delta, and the settings that explain it.",
        description = {"Pairs the devices of two runs by physical id and prints, per component, A, B and B - A with their"
            + " confidences (two measured numbers give a measured delta; mixed confidences are said), then what changed in"
            + " the deployment (engine version, utilization, max_model_len, eager vs graphs, dtype, TP) from run.json and the"
            + " vLLM logs, and how far it explains each delta. RUN is a run directory or a report.json written by analyze."
            + " Text or JSON (docs/diff.schema.json); there is no HTML form yet."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:diff printed", "2:unusable input (a run or report.json that cannot be read, no device in common); nothing printed on stdout"})
public final class DiffCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "RUN_A", description = "run directory or report.json")
    Path a;

    @Parameters(index = "1", paramLabel = "RUN_B", description = "run directory or report.json")
    Path b;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE})")
    OutputFormat format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        try {
            Side sa = SideReader.read(a, w -> err.println("hbm-ledger: warning: " + a + ": " + w));
            Side sb = SideReader.read(b, w -> err.println("hbm-ledger: warning: " + b + ": " + w));
            Diff d = Differ.diff(sa, sb);
            if (d.devices().isEmpty()) {
                throw new BadInputException("no device in common: " + a + " has " + keys(sa) + ", " + b + " has " + keys(sb)
                        + "; devices pair by physical id (npu-smi NPU/chip, or the device id when no sample names it)");
            }
            String shown;
            if (format == OutputFormat.json) {
                shown = DiffOutput.json(d);
            } else {
                StringWriter buf = new StringWriter();
                DiffOutput.text(d, new PrintWriter(buf));
                shown = buf.toString();
            }
            return Finish.print(spec, shown);
        } catch (BadInputException | EvidenceException e) {
            return Finish.badInput(spec, e);
        }
    }

    private static String keys(Side s) {
        return s.devices().isEmpty() ? "none" : String.join(", ", s.devices().stream().map(Side.Device::key).toList());
    }
}
