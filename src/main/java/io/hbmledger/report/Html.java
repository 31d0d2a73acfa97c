package io.hbmledger.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Escaping and the inlined style and script of the HTML report. */
final class Html {

    private Html() {
    }

    /** Text for an element's content or a quoted attribute: every text from evidence goes through here. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** A coordinate with one decimal, locale-free. */
    static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A resource of this package (report.css, report.js), inlined so the page needs no other file. */
    static String resource(String name) {
        try (InputStream in = Html.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar (src/main/resources/io/hbmledger/report)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A colour per component, the same in both colour schemes; unknown names get a grey. */
    static String colour(String component) {
        return switch (component) {
            case "driver_baseline" -> "#6e7781";
            case "weights" -> "#0969da";
            case "kv_cache" -> "#1a7f37";
            case "graph_pool" -> "#8250df";
            case "activation_peak", "activation_peak_and_non_torch" -> "#bf8700";
            case "non_torch" -> "#d4a72c";
            case "hccl" -> "#cf222e";
            case "cann_runtime" -> "#fb8f44";
            case "other_modules" -> "#a475f9";
            case "allocator_cache" -> "#4ac26b";
            case "other_processes" -> "#953800";
            case "server_processes", "torch_allocated" -> "#54aeff";
            case "outside_processes" -> "#8c959f";
            case "residual" -> "#e85aad";
            default -> "#afb8c1";
        };
    }
}
