package io.hbmledger.collect;

import java.nio.charset.StandardCharsets;

/**
 * What a finished (or abandoned) command produced.
 *
 * @param exitCode the exit status, or -1 when the command timed out and was killed
 * @param stdout   standard output, byte for byte
 * @param stderr   standard error, byte for byte
 * @param timedOut true when the command did not finish within its timeout
 */
public record CommandResult(int exitCode, byte[] stdout, byte[] stderr, boolean timedOut) {

    public boolean ok() {
        return !timedOut && exitCode == 0;
    }

    public String stdoutText() {
        return new String(stdout, StandardCharsets.UTF_8);
    }

    public String stderrText() {
        return new String(stderr, StandardCharsets.UTF_8);
    }
}
