package io.hbmledger.cli;

import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.CollectException;
import io.hbmledger.run.FileProblem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * Entry point: one small class per verb. The top command's model is built by hand, as
 * {@code evidence}'s and {@code analyze}'s are: reading picocli's annotations costs every start
 * ~40-55 ms (see {@link EvidenceCommand}, {@link AnalyzeSpec}); the other verbs keep theirs.
 */
public final class Main implements Runnable {

    static final String VERSION = "hbm-ledger 0.1.0";

    /**
     * The verbs, in the order help lists them. Registered here rather than in the annotation so
     * that a run of one verb builds only that verb's model: picocli reflects over every option
     * of every registered command up front, which was ~150 ms of a ~340 ms start (measured).
     */
    private static final Map<String, Supplier<Object>> VERBS = verbs();

    private static Map<String, Supplier<Object>> verbs() {
        Map<String, Supplier<Object>> v = new LinkedHashMap<>();
        v.put("analyze", () -> new CommandLine(AnalyzeCommand.commandSpec()));
        v.put("evidence", () -> new CommandLine(EvidenceCommand.commandSpec()));
        v.put("weights", WeightsCommand::new);
        v.put("plan", PlanCommand::new);
        v.put("diff", DiffCommand::new);
        v.put("exec", ExecCommand::new);
        v.put("collect", CollectCommand::new);
        v.put("help", CommandLine.HelpCommand::new);
        return Collections.unmodifiableMap(v);
    }

    /** Exit code for input that cannot be used (bad, empty or unknown files). */
    public static final int EXIT_BAD_INPUT = 2;
    /** analyze --fail-on: the run is at least as bad as the level asked. */
    public static final int EXIT_FAIL_ON = 3;

    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        if (args.length > 0 && (args[0].equals("evidence") || args[0].equals("analyze"))) {
            // the verbs that may read msprof exports: their readers' first use links on another core
            io.hbmledger.evidence.msprof.MsprofReader.prepareInBackground();
        }
        excludeUnusedConverters();
        // before picocli takes System.out / System.err: every verb's terminal output goes through it
        RecordedWrites fd1 = new RecordedWrites(new java.io.FileOutputStream(java.io.FileDescriptor.out));
        java.io.PrintStream stdout = new java.io.PrintStream(new java.io.BufferedOutputStream(fd1, 8192), true,
                Charset.defaultCharset());
        System.setOut(new java.io.PrintStream(new TerminalSafeOutput(stdout), true, Charset.defaultCharset()));
        System.setErr(new java.io.PrintStream(new TerminalSafeOutput(System.err), true, Charset.defaultCharset()));
        CommandLine cl = newCommandLine(args);
        cl.setOut(new Stdout(cl.getOut(), stdout));
        int code = cl.execute(args);
        cl.getOut().flush();
        System.out.flush();
        stdout.flush();
        System.exit(outputWritten(fd1, code));
    }

    /** Exit code of a run whose standard output could not be written (a full disk, a file system gone). */
    static final int EXIT_OUTPUT_FAILED = 1;

    /** The run's exit code, or {@link #EXIT_OUTPUT_FAILED} with a line on stderr when its output was lost. */
    private static int outputWritten(RecordedWrites fd1, int code) {
        java.util.Optional<java.io.IOException> failed = fd1.failure();
        if (failed.isEmpty()) {
            return code;
        }
        System.err.println("hbm-ledger: standard output could not be written (" + failed.get().getMessage()
                + "): what it was sent to is cut short or empty. Free space where it goes (or write it elsewhere) and"
                + " run again");
        System.err.flush();
        return code == 0 ? EXIT_OUTPUT_FAILED : code;
    }

    /** Types of the built-in converters that {@link #excludeUnusedConverters} leaves out. */
    static final String UNUSED_CONVERTERS = "java\\.sql\\..*,java\\.time\\..*";

    /**
     * picocli registers converters for java.time and java.sql types in every command line it
     * makes, by reflection: loading and initialising ~90 JDK classes (DateTimeFormatter's among
     * them) was ~8 ms of every start (measured, issue 17). No option here has such a type
     * ({@code HelpTextTest} checks every verb's), so they are left out with picocli's documented
     * property, unless the user set it.
     */
    private static void excludeUnusedConverters() {
        if (System.getProperty("picocli.converters.excludes") == null) {
            System.setProperty("picocli.converters.excludes", UNUSED_CONVERTERS);
        }
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

    /**
     * A path argument. Java decodes arguments and file names with the locale's charset
     * (sun.jnu.encoding): under LANG=C that is ASCII, and a name such as "日本語" arrives as
     * replacement characters that no Path can hold. Said in words, with the fix.
     */
    static Path path(String value) {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            String encoding = System.getProperty("sun.jnu.encoding", Charset.defaultCharset().name());
            boolean unmappable = value.indexOf('\uFFFD') >= 0 || !Charset.isSupported(encoding)
                    || !Charset.forName(encoding).newEncoder().canEncode(value);
            throw new CommandLine.TypeConversionException("'" + value + "' is not a usable path: "
                    + (unmappable ? "it holds characters that this locale's file-name encoding (" + encoding
                            + ", taken from LC_ALL / LC_CTYPE / LANG) cannot represent. Run under a UTF-8 locale, e.g."
                            + " 'LC_ALL=C.UTF-8 hbm-ledger ...' ('locale -a' lists the installed ones; the ./hbm-ledger"
                            + " launcher switches to C.UTF-8 by itself when the system has it)"
                            : e.getReason()));
        }
    }

    /**
     * Exceptions a verb did not turn into a message itself: a bad argument found late
     * ({@link ArgumentException}) or another {@link CollectException}, and file-system failures on paths the user gave (a state
     * directory, an output file) become one line naming the path and the reason, exit 2, instead
     * of a stack trace. Anything else is a bug and keeps picocli's stack trace.
     */
    private static int failure(Exception ex, CommandLine where, CommandLine.ParseResult parsed) throws Exception {
        String who = where.getCommandSpec().qualifiedName();
        IOException io = ex instanceof IOException i ? i : ex instanceof UncheckedIOException u ? u.getCause() : null;
        if (ex instanceof CollectException) {
            // a bad argument found late (ArgumentException), a damaged execution record, ...: the message says what to do
            where.getErr().println(who + ": " + ex.getMessage());
        } else if (io != null) {
            where.getErr().println(who + ": " + FileProblem.describe(io)
                    + "; stopped there. Check that path (an option, an argument, --state-dir or $HBM_LEDGER_STATE)");
        } else {
            throw ex;
        }
        where.getErr().flush();
        return EXIT_BAD_INPUT;
    }

    private static CommandLine build(Collection<String> verbs) {
        Main main = new Main();
        main.spec = CommandLine.Model.CommandSpec.wrapWithoutInspection(main).name("hbm-ledger").version(VERSION);
        main.spec.usageMessage().description("Where did my accelerator memory go? A per-device HBM ledger for vLLM servers.");
        CommandLine cl = new CommandLine(StandardOptions.addTo(main.spec));
        for (String verb : verbs) {
            cl.addSubcommand(verb, VERBS.get(verb).get());
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            // `hbm-ledger VERB --version` printed nothing: a verb's model has no version of its own
            if (sub.getCommandSpec().version().length == 0) {
                sub.getCommandSpec().version(VERSION);
            }
        }
        // after the verbs are added: picocli applies it to the commands present at this moment
        cl.setHelpFactory(HelpText.FACTORY);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Path.class, Main::path);
        cl.setExecutionExceptionHandler(Main::failure);
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
