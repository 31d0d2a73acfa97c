package io.hbmledger.collect;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns an argument list into one POSIX sh command line for SSH, which only carries strings: every
 * argument is single-quoted, so spaces, quotes, $(), backticks and ; reach the program literally.
 */
public final class ShellQuote {

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private ShellQuote() {
    }

    public static String quote(String arg) {
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    /** {@code env 'K=V'... 'arg0' 'arg1'...} */
    public static String command(Map<String, String> env, List<String> argv) {
        StringBuilder sb = new StringBuilder();
        if (!env.isEmpty()) {
            sb.append("env");
            env.forEach((k, v) -> {
                if (!ENV_NAME.matcher(k).matches()) {
                    throw new CollectException("not an environment variable name: '" + k + "'");
                }
                sb.append(' ').append(quote(k + "=" + v));
            });
        }
        for (String a : argv) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(quote(a));
        }
        return sb.toString();
    }
}
