package io.hbmledger.evidence.command;

import java.util.ArrayList;
import java.util.List;

/** Splits a shell line into words at blanks, keeping quoted parts ('...' or "...") whole. */
final class Words {

    private Words() {
    }

    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                w.append(c);
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                w.append(c);
            } else if (Character.isWhitespace(c)) {
                if (w.length() > 0) {
                    out.add(w.toString());
                    w.setLength(0);
                }
            } else {
                w.append(c);
            }
        }
        if (w.length() > 0) {
            out.add(w.toString());
        }
        return out;
    }
}
