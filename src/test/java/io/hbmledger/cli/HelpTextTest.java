package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/** Help and usage errors read well (fresh-user finding 15). */
class HelpTextTest {

    @Test
    void commandListShowsWholeSentences() {
        CliRun r = CliRun.of("--help");
        assertThat(r.out()).contains("analyze   Per-device HBM ledger of a run directory or of evidence files.")
                .contains("weights   Checkpoint weights per component and per device under TP/DP/PP/EP.")
                .doesNotContain("graph pool, other\n");
    }

    @Test
    void analyzeHelpKeepsFileNamesWhole() {
        CliRun r = CliRun.of("analyze", "--help");
        assertThat(r.out()).contains("beside run.json.").doesNotContain("run.\njson").doesNotContain("run.\r\njson");
    }

    @Test
    void usageErrorsNameTheCommandOnce() {
        assertThat(CliRun.of("--bogus").err()).contains("Try 'hbm-ledger --help'.");
        CliRun r = CliRun.of("analyze", "--bogus");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Try 'hbm-ledger analyze --help'.");
    }

    @Test
    void aVerbRunBuildsOnlyThatVerbButHelpListsThemAll() {
        assertThat(Main.newCommandLine(new String[] {"evidence", "x.csv"}).getSubcommands().keySet())
                .containsExactly("evidence");
        assertThat(Main.newCommandLine(new String[] {"help", "analyze"}).getSubcommands().keySet())
                .containsExactly("analyze", "evidence", "weights", "plan", "diff", "exec", "collect", "help");
        assertThat(Main.newCommandLine(new String[] {"--version"}).getSubcommands()).hasSize(8);
        // the usage error of a verb run alone still names the program and the verb
        CliRun r = CliRun.of("evidence", "--bogus");
        assertThat(r.err()).contains("Try 'hbm-ledger evidence --help'.");
    }

    @Test
    void theEvidenceModelBuiltByHandReadsAsAnAnnotatedOneWould() {
        // evidence and the top command are built without annotations (start-up, issue 17): the
        // same usage, options, required FILE and exit codes as their annotated versions printed
        CliRun help = CliRun.of("evidence", "--help");
        assertThat(help.out()).contains("Usage: hbm-ledger evidence [-hV] [--format=<format>] FILE...")
                .contains("      --format=<format>   text or json (default: text)")
                .contains("  -h, --help              Show this help message and exit.")
                .contains("  -V, --version           Print version information and exit.")
                .contains("Exit codes:").contains("  0   every file was read");
        CliRun none = CliRun.of("evidence");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("Missing required parameter: 'FILE'");
        assertThat(CliRun.of("evidence", "--format", "bogus", "x").err())
                .contains("expected one of [text, json] (case-insensitive) but was 'bogus'");
        assertThat(CliRun.of("--help").out()).startsWith("Usage: hbm-ledger [-hV] [COMMAND]")
                .contains("  -V, --version   Print version information and exit.");
        // a verb's --version printed nothing before: each verb now prints the program's
        assertThat(CliRun.of("evidence", "--version").out()).isEqualTo("hbm-ledger 0.1.0" + System.lineSeparator());
        assertThat(CliRun.of("analyze", "-V").out()).isEqualTo("hbm-ledger 0.1.0" + System.lineSeparator());
    }

    /** Every command of the model: the verbs and their sub-verbs (exec start, ...), the top included. */
    private static List<CommandLine> everyCommand() {
        List<CommandLine> all = new ArrayList<>();
        List<CommandLine> todo = new ArrayList<>(List.of(Main.newCommandLine()));
        while (!todo.isEmpty()) {
            CommandLine c = todo.remove(0);
            all.add(c);
            todo.addAll(c.getSubcommands().values());
        }
        return all;
    }

    /** Each help text of a command as written: header, description, footer, exit codes, options, parameters. */
    private static List<List<String>> texts(CommandSpec spec) {
        UsageMessageSpec u = spec.usageMessage();
        List<List<String>> out = new ArrayList<>(List.of(Arrays.asList(u.header()), Arrays.asList(u.description()),
                Arrays.asList(u.footer())));
        u.exitCodeList().values().forEach(v -> out.add(List.of(v)));
        List<ArgSpec> args = new ArrayList<>(spec.options());
        args.addAll(spec.positionalParameters());
        for (ArgSpec a : args) {
            out.add(Arrays.asList(a.description()));
        }
        return out;
    }

    /** A word with a dot inside: run.json, .safetensors, deployment.model_dir, docs/run.schema.json, e.g */
    private static final Pattern DOTTED = Pattern.compile("[\\p{L}\\p{N}_/~-]*\\.[\\p{L}\\p{N}_][\\p{L}\\p{N}_.-]*");

    @Test
    void noWordIsSplitAtADotInAnyHelp() {
        // The JDK line breaker that picocli wraps with breaks after a dot followed by a letter
        // ("run.|json"): every dotted word of every text must come out of the help whole.
        int checked = 0;
        for (CommandLine c : everyCommand()) {
            String help = c.getUsageMessage(CommandLine.Help.Ansi.OFF);
            for (List<String> text : texts(c.getCommandSpec())) {
                for (String line : text) {
                    Matcher m = DOTTED.matcher(line);
                    while (m.find()) {
                        String word = m.group().replaceAll("[.-]+$", "");
                        assertThat(help).as("'%s' in the help of '%s'", word, c.getCommandSpec().qualifiedName()).contains(word);
                        checked++;
                    }
                }
            }
        }
        // run.json, .safetensors, deployment.model_dir, config.json, ... (a test that checks nothing cannot fail)
        assertThat(checked).isGreaterThan(20);
    }

    @Test
    void helpTextsAreWrittenAsParagraphsAndFitTheWidth() {
        // picocli starts every element of a description array on a new line and wraps each one
        // alone: an element that stops mid-sentence leaves a ragged line break ("else estimated" /
        // "from config.json"). So an element either ends its sentence, is blank, or is an
        // indented example line short enough never to be wrapped.
        for (CommandLine c : everyCommand()) {
            String name = c.getCommandSpec().qualifiedName();
            int width = c.getCommandSpec().usageMessage().width();
            for (List<String> text : texts(c.getCommandSpec())) {
                for (int i = 0; i + 1 < text.size(); i++) {
                    String e = text.get(i);
                    boolean example = e.startsWith(" ");
                    assertThat(e.isBlank() || example || e.strip().matches("(?s).*[.:!?]"))
                            .as("'%s' in %s: a help line that does not end its sentence", e, name).isTrue();
                    if (example) {
                        assertThat(e.length()).as("example line '%s' in %s", e, name).isLessThanOrEqualTo(width);
                    }
                }
            }
            for (String line : c.getUsageMessage(CommandLine.Help.Ansi.OFF).split("\\R")) {
                assertThat(line.length()).as("line of the help of %s: '%s'", name, line).isLessThanOrEqualTo(width);
            }
        }
    }

    @Test
    void theVerbListAndTheOptionsKeepFileNamesWhole() {
        // the cases a fresh user met: collect's line in the verb list ("run.<newline>json"), analyze --model-dir;
        // each verb is listed by a one-sentence header that fits its line
        String verbs = CliRun.of("--help").out();
        assertThat(verbs.substring(verbs.indexOf("Commands:"))).doesNotContain("run.\n")
                .contains("  collect   Collect a vLLM server's memory evidence into a run directory.\n")
                .contains("  exec      Start, stop and inspect managed serving executions.\n");
        String analyze = CliRun.of("analyze", "--help").out();
        assertThat(analyze).contains(".safetensors", "deployment.model_dir").doesNotContain("one .\n");
    }

    @Test
    void aDottedWordAtTheWrapColumnStaysWhole() {
        // Slide dotted words across the wrap column of a description, an option and the verb list:
        // with picocli's own help some positions split them ("run.|json"); with HelpText none does.
        // The plain runs show that the test can fail.
        List<String> words = List.of("run.json", ".safetensors", "deployment.model_dir");
        int splitPlain = 0;
        for (int pad = 0; pad < 40; pad++) {
            String text = "x".repeat(pad) + " a b c d e f g h i j k l m n o p q r s t u v w x y z run.json and one"
                    + " .safetensors file, then a b c d e f g h i j k l m n o p q r s t u v w x y z deployment.model_dir.";
            for (boolean fixed : new boolean[] {false, true}) {
                CommandSpec sub = CommandSpec.create().name("sub");
                sub.usageMessage().description(text);
                sub.addOption(CommandLine.Model.OptionSpec.builder("--opt").description(text).build());
                CommandLine top = new CommandLine(CommandSpec.create().name("top"));
                top.addSubcommand("sub", new CommandLine(sub));
                if (fixed) {
                    top.setHelpFactory(HelpText.FACTORY);
                }
                String verbList = top.getUsageMessage(CommandLine.Help.Ansi.OFF);
                String subHelp = top.getSubcommands().get("sub").getUsageMessage(CommandLine.Help.Ansi.OFF);
                for (String w : words) {
                    boolean whole = count(subHelp, w) == 2 && count(verbList, w) == 1;
                    if (fixed) {
                        assertThat(whole).as("'%s' at pad %d:%n%s%n%s", w, pad, verbList, subHelp).isTrue();
                    } else if (!whole) {
                        splitPlain++;
                    }
                }
            }
        }
        assertThat(splitPlain).as("picocli alone splits some of them").isPositive();
    }

    private static int count(String text, String word) {
        int n = 0;
        for (int at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
            n++;
        }
        return n;
    }

    /** Every exec verb says what its exit codes mean (QA: status, list and logs did not). */
    @Test
    void everyExecVerbListsItsExitCodes() {
        for (String verb : new String[] {"start", "stop", "status", "list", "logs"}) {
            CliRun r = CliRun.of("exec", verb, "--help");
            assertThat(r.out()).as(verb).contains("Exit codes:").containsPattern("(?m)^\\s+0\\s+\\S");
        }
        assertThat(CliRun.of("exec", "status", "--help").out()).contains("unknown execution");
    }

    /**
     * main leaves out picocli's converters for java.time and java.sql types (start-up, issue 17):
     * an option of such a type would then fail to parse. None of any verb's options and
     * parameters has one (checked down to element types, e.g. List&lt;Duration&gt;).
     */
    @Test
    void noOptionNeedsAConverterThatMainLeavesOut() {
        List<String> excluded = Arrays.asList(Main.UNUSED_CONVERTERS.split(","));
        assertThat(excluded).hasSize(2);
        List<String> types = new ArrayList<>();
        List<CommandLine> todo = new ArrayList<>(List.of(Main.newCommandLine()));
        while (!todo.isEmpty()) {
            CommandLine c = todo.remove(todo.size() - 1);
            todo.addAll(c.getSubcommands().values());
            for (ArgSpec a : c.getCommandSpec().args()) {
                types.add(a.type().getName());
                for (Class<?> t : a.auxiliaryTypes()) {
                    types.add(t.getName());
                }
            }
        }
        assertThat(types).hasSizeGreaterThan(100).contains("java.nio.file.Path", "double");
        assertThat(types).noneMatch(t -> excluded.stream().anyMatch(t::matches));
        // the patterns do match the types they are meant for
        assertThat("java.time.Duration".matches(excluded.get(1))).isTrue();
        assertThat("java.sql.Timestamp".matches(excluded.get(0))).isTrue();
    }
}
