package io.hbmledger.cli;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point: one small class per verb. */
@Command(name = "hbm-ledger",
        mixinStandardHelpOptions = true,
        version = "hbm-ledger 0.1.0",
        description = "Where did my accelerator memory go? A per-device HBM ledger for vLLM servers.")
public final class Main implements Runnable {

    /**
     * The verbs, in the order help lists them. Registered here rather than in the annotation so
     * that a run of one verb builds only that verb's model: picocli reflects over every option
     * of every registered command up front, which was ~150 ms of a ~340 ms start (measured).
     */
    private static final Map<String, Supplier<Object>> VERBS = verbs();

    private static Map<String, Supplier<Object>> verbs() {
        Map<String, Supplier<Object>> v = new LinkedHashMap<>();
        v.put("analyze", AnalyzeCommand::new);
        v.put("evidence", EvidenceCommand::new);
        v.put("weights", WeightsCommand::new);
        v.put("exec", ExecCommand::new);
        v.put("collect", CollectCommand::new);
        v.put("help", CommandLine.HelpCommand::new);
        return Collections.unmodifiableMap(v);
    }

    /** Exit code for input that cannot be used (bad, empty or unknown files). */
    public static final int EXIT_BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(newCommandLine(args).execute(args));
    }

    /** The command line with every verb and this project's error handling (help, tests). */
    public static CommandLine newCommandLine() {
        return build(VERBS.keySet());
    }

    /**
     * The command line for these arguments: only the named verb when they start with one
     * ({@code help} lists every verb, so it and anything else get all of them).
     */
    public static CommandLine newCommandLine(String[] args) {
        if (args.length > 0 && VERBS.containsKey(args[0]) && !"help".equals(args[0])) {
            return build(List.of(args[0]));
        }
        return newCommandLine();
    }

    private static CommandLine build(Collection<String> verbs) {
        CommandLine cl = new CommandLine(new Main());
        for (String verb : verbs) {
            cl.addSubcommand(verb, VERBS.get(verb).get());
        }
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
