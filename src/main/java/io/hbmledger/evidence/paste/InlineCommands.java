package io.hbmledger.evidence.paste;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * vLLM start commands written as inline code in prose: "I start it with {@code `vllm serve M
 * --gpu-memory-utilization 0.9`} and ...", or one inline span per line as vllm #19023 wrote its
 * "running script" ({@code `vllm serve /path/to/model`} then {@code `--tp 4 \`},
 * {@code `--gpu-memory-utilization 0.5\`} on the lines below). Each command is given back as the
 * text a shell line would hold, on the lines it was written on, so that the vLLM log reader reads
 * it as it reads a command in a fenced block. A span that does not start a command ("the
 * {@code `vllm serve`} flags") gives nothing. Pure: lines in, commands out.
 */
final class InlineCommands {

    /** An inline code span: one or two backticks, the same number closing it, on one line. */
    private static final Pattern SPAN = Pattern.compile("(`{1,2})([^`]+?)\\1(?!`)");
    /**
     * The start of a command inside a span: a prompt, environment assignments or sudo, then the
     * CLI entry point or the OpenAI server module, followed by an argument.
     */
    private static final Pattern COMMAND = Pattern.compile(
            "^\\s*(?:[$#]\\s+)?(?:sudo\\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+)*"
                    + "(?:vllm\\s+serve|(?:\\S*/)?python[\\d.]*\\s+-m\\s+vllm\\.entrypoints\\.\\S+)\\s+\\S");
    /**
     * Flags in spans of their own after a command's span on the same line, joined by a few words
     * only: "I run {@code `vllm serve M`} with {@code `--gpu-memory-utilization 0.9`} and
     * {@code `--max-model-len 8192`}". A flag further on, after a sentence, is not taken.
     */
    private static final Pattern JOINED_FLAGS = Pattern.compile(
            "^(?:\\s|,|(?i:and|with|plus|using))*(`{1,2})\\s*(--?[A-Za-z][^`]*?)\\1(?!`)");
    /** A line that is one inline span holding flags only: the next line of a command written span by span. */
    private static final Pattern FLAG_LINE = Pattern.compile("^\\s*`{1,2}\\s*(--?[A-Za-z][^`]*?)`{1,2}\\s*$");

    /**
     * One command: its lines in the paste and the text of each, continued with a trailing
     * backslash on every line but the last.
     *
     * @param first 1-based first line
     * @param texts the command's text per line, from {@code first} on
     */
    record Command(int first, List<String> texts) {

        Command {
            texts = List.copyOf(texts);
        }

        int last() {
            return first + texts.size() - 1;
        }
    }

    private InlineCommands() {
    }

    /** The commands in lines {@code first..last} (1-based, inclusive) of prose; index i of {@code lines} is line i+1. */
    static List<Command> find(List<String> lines, int first, int last) {
        List<Command> out = new ArrayList<>();
        for (int n = first; n <= last; n++) {
            String line = PasteLine.unquoted(lines.get(n - 1));
            Matcher span = SPAN.matcher(line);
            while (span.find()) {
                String code = span.group(2);
                if (!COMMAND.matcher(code).find()) {
                    continue;
                }
                int end = span.end();
                for (Matcher f = JOINED_FLAGS.matcher(line.substring(end)); f.find(); f = JOINED_FLAGS.matcher(line.substring(end))) {
                    code = code.stripTrailing() + " " + f.group(2).strip();
                    end += f.end();
                }
                span.region(end, line.length());
                List<String> texts = new ArrayList<>();
                texts.add(code);
                // only a span that ends its line can go on below (one span per line)
                boolean endsLine = line.substring(end).isBlank();
                int next = n + 1;
                while (endsLine && next <= last) {
                    Matcher flags = FLAG_LINE.matcher(PasteLine.unquoted(lines.get(next - 1)));
                    if (!flags.find()) {
                        break;
                    }
                    texts.add(flags.group(1));
                    next++;
                }
                out.add(new Command(n, continued(texts)));
                if (texts.size() > 1) {
                    n = next - 1;
                    break;
                }
            }
        }
        return out;
    }

    /** Each line but the last ends with " \" (a span may hold one glued to its value, "0.5\"); the last ends without. */
    private static List<String> continued(List<String> texts) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String t = texts.get(i).strip();
            while (t.endsWith("\\")) {
                t = t.substring(0, t.length() - 1).stripTrailing();
            }
            out.add(i < texts.size() - 1 ? t + " \\" : t);
        }
        return out;
    }
}
