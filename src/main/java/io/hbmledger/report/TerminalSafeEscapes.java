package io.hbmledger.report;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;

/**
 * Jackson's escapes plus DEL (U+007F) and the C1 controls U+0080..U+009F as JSON's six-character escape (backslash, u, four hex digits): with
 * them a JSON document holds no control character at all (Jackson escapes U+0000..U+001F
 * itself), so it can go to a terminal as it is. The C1 controls matter there: U+009B is the
 * one-byte form of ESC [ on terminals that take it, and file names or log lines quoted as
 * evidence may hold one. The JSON value is the same either way.
 */
public final class TerminalSafeEscapes extends CharacterEscapes {

    /** Shared: the tables are never changed after construction. */
    public static final TerminalSafeEscapes INSTANCE = new TerminalSafeEscapes();

    private final int[] ascii;
    private final SerializableString[] c1 = new SerializableString[0xA0 - 0x80];

    private TerminalSafeEscapes() {
        ascii = standardAsciiEscapesForJSON();
        ascii[0x7F] = ESCAPE_STANDARD;
        for (int c = 0x80; c < 0xA0; c++) {
            c1[c - 0x80] = new SerializedString(String.format("\\u%04X", c));
        }
    }

    @Override
    public int[] getEscapeCodesForAscii() {
        return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
        return ch >= 0x80 && ch < 0xA0 ? c1[ch - 0x80] : null;
    }
}
