package io.hbmledger.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point: one small class per verb. */
@Command(name = "hbm-ledger",
        mixinStandardHelpOptions = true,
        version = "hbm-ledger 0.1.0",
        description = "Where did my accelerator memory go? A per-device HBM ledger for vLLM servers.",
        subcommands = {
            AnalyzeCommand.class,
            EvidenceCommand.class,
            WeightsCommand.class,
            ExecCommand.class,
            CollectCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    /** Exit code for input that cannot be used (bad, empty or unknown files). */
    public static final int EXIT_BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The command line with this project's error handling, shared by main() and the tests. */
    public static CommandLine newCommandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("hbm-ledger: " + ex.getMessage());
            // qualifiedName is "hbm-ledger" at the top and "hbm-ledger analyze" below it
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help'.");
            return EXIT_BAD_INPUT;
        });
        return cl;
    }
}
