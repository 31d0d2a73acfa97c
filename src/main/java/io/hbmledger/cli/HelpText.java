package io.hbmledger.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * picocli's help, without words split at a dot. picocli wraps help text with the JDK's line
 * {@link java.text.BreakIterator}, which allows a break after a dot followed by a letter:
 * {@code run.|json}, {@code one .|safetensors}, {@code deployment.|model_dir} (UAX #14 treats the
 * dot as an infix separator only before digits). picocli hides '-' from the iterator for the
 * same reason. Here every dot inside a word is swapped for a private-use character before
 * picocli lays a text out and swapped back in the finished text, so file names and field paths
 * stay whole; the layout itself stays picocli's.
 */
final class HelpText extends Help {

    /** For {@link CommandLine#setHelpFactory}. */
    static final CommandLine.IHelpFactory FACTORY = HelpText::new;

    /** Never in help text: U+E000 is private use, one column wide, and a letter to the iterator. */
    private static final char HIDDEN_DOT = '\uE000';
    private static final Pattern DOT_IN_WORD = Pattern.compile("\\.(?=[\\p{L}\\p{N}_])");

    HelpText(CommandSpec spec, ColorScheme scheme) {
        super(spec, scheme);
    }

    static String hide(String s) {
        return s == null ? null : DOT_IN_WORD.matcher(s).replaceAll(String.valueOf(HIDDEN_DOT));
    }

    static String show(String s) {
        return s.replace(HIDDEN_DOT, '.');
    }

    @Override
    public String header(Object... params) {
        return joined(commandSpec().usageMessage().header(), params);
    }

    @Override
    public String description(Object... params) {
        return joined(commandSpec().usageMessage().description(), params);
    }

    @Override
    public String footer(Object... params) {
        return joined(commandSpec().usageMessage().footer(), params);
    }

    /** What picocli's header(), description() and footer() do, on hidden text. */
    private String joined(String[] lines, Object... params) {
        String[] hidden = new String[lines.length];
        for (int i = 0; i < lines.length; i++) {
            hidden[i] = hide(lines[i]);
        }
        CommandLine.Model.UsageMessageSpec u = commandSpec().usageMessage();
        return show(Help.join(ansi(), u.width(), u.adjustLineBreaksForWideCJKCharacters(), hidden, new StringBuilder(), params)
                .toString());
    }

    @Override
    public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals, ColorScheme scheme) {
        Layout picocli = super.createDefaultLayout(options, positionals, scheme);
        return new Layout(scheme, new Table(scheme, picocli.textTable()), picocli.optionRenderer(), picocli.parameterRenderer());
    }

    @Override
    public TextTable createTextTable(Map<?, ?> map) {
        // picocli fills the table here (the exit code list): the hidden text goes in, exitCodeList shows it
        Map<String, String> hidden = new LinkedHashMap<>();
        if (map != null) {
            map.forEach((k, v) -> hidden.put(hide(String.valueOf(k)), hide(String.valueOf(v))));
        }
        return super.createTextTable(hidden);
    }

    @Override
    public String exitCodeList() {
        return show(super.exitCodeList());
    }

    /**
     * The verbs and their one-line headers, laid out as picocli does (a name column as wide as
     * the longest name, at most half the width; the header wrapped beside it).
     */
    @Override
    public String commandList(Map<String, Help> subcommands) {
        if (subcommands.isEmpty()) {
            return "";
        }
        int width = commandSpec().usageMessage().width();
        int names = Math.min(subcommands.keySet().stream().mapToInt(String::length).max().orElse(0), width / 2);
        TextTable base = TextTable.forColumns(colorScheme(), new Column(names + 2, 2, Column.Overflow.SPAN),
                new Column(width - (names + 2), 2, Column.Overflow.WRAP));
        base.setAdjustLineBreaksForWideCJKCharacters(commandSpec().usageMessage().adjustLineBreaksForWideCJKCharacters());
        Table table = new Table(colorScheme(), base);
        for (Help help : subcommands.values()) {
            CommandLine.Model.UsageMessageSpec u = help.commandSpec().usageMessage();
            String header = u.header().length > 0 ? u.header()[0] : u.description().length > 0 ? u.description()[0] : "";
            Ansi.Text[] lines = colorScheme().text(header).splitLines();
            for (int i = 0; i < lines.length; i++) {
                table.addRowValues(i == 0 ? help.commandNamesText(", ") : colorScheme().text(""), lines[i]);
            }
        }
        return table.toString();
    }

    /** picocli's table with the same columns, hiding dots from its line breaker. */
    private static final class Table extends TextTable {
        private final ColorScheme scheme;

        Table(ColorScheme scheme, TextTable like) {
            super(scheme, like.columns());
            this.scheme = scheme;
            this.indentWrappedLines = like.indentWrappedLines;
            setAdjustLineBreaksForWideCJKCharacters(like.isAdjustLineBreaksForWideCJKCharacters());
        }

        @Override
        public Cell putValue(int row, int col, Ansi.Text value) {
            String plain = value == null ? null : value.plainString();
            if (plain == null || !DOT_IN_WORD.matcher(plain).find()) {
                return super.putValue(row, col, value);
            }
            // help descriptions carry no colour markup, so the plain text loses nothing
            return super.putValue(row, col, scheme.ansi().new Text(hide(plain), scheme));
        }

        @Override
        public StringBuilder toString(StringBuilder text) {
            int from = text.length();
            super.toString(text);
            for (int i = from; i < text.length(); i++) {
                if (text.charAt(i) == HIDDEN_DOT) {
                    text.setCharAt(i, '.');
                }
            }
            return text;
        }

        @Override
        public String toString() {
            return toString(new StringBuilder()).toString();
        }
    }
}
