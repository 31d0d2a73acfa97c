package io.hbmledger.load;

import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.StatedIdle;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.paste.IdlePhrases;
import io.hbmledger.run.Moment;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The moment a paste's own prose gives its device tables: "Before starting vLLM, npu-smi shows:"
 * above a table (in a paste, or at the top of a file read whole as npu-smi output) makes it an idle baseline ({@link StatedIdle}), so that it is not compared with the
 * server's budget as a sample of the running server. A moment given by the user (--moment,
 * run.json) wins. Moments are kept per file in the ledger, so the prose decides only when it says
 * the same of every table of the paste; a paste with an idle table and another one is left
 * without a moment, with a warning that says how to give each its own.
 */
final class PastedMoments {

    private PastedMoments() {
    }

    /**
     * @param assumed receives the note saying what was taken from the prose
     * @param warn receives the warning for a paste whose tables the prose tells apart
     * @return {@link Moment#BASELINE} for the paste's device tables, or null
     */
    static Moment idle(RunInput in, List<EvidencePart> parts, List<String> assumed, Consumer<String> warn) {
        List<EvidencePart> tables = parts.stream().filter(p -> p.read() && p.format().isDeviceSample()).toList();
        List<EvidencePart> idle = tables.stream().filter(p -> p.idle() != null).toList();
        if (in.moment() != null || idle.isEmpty()) {
            return null;
        }
        StatedIdle said = idle.get(0).idle();
        String where = idle.get(0).lines() + " (line " + said.line() + " says \"" + said.phrase() + "\")";
        if (idle.size() < tables.size()) {
            warn.accept(in.shown() + ": the prose says " + where + " shows idle devices, before the server started, but not"
                    + " the other tables of the paste; no moment was taken from it: put each table in a file of its own"
                    + " and give its moment (--moment FILE=baseline, --moment FILE=ready)");
            return null;
        }
        return baseline(in, where, assumed);
    }

    /** Largest device-sample file whose text is searched for a sentence above its table. */
    private static final long ABOVE_MAX_BYTES = 1 << 20;

    /**
     * A device-sample file read whole ("Before starting vLLM:" then the npu-smi table, no fence):
     * {@link Moment#BASELINE} when the lines above its table say so, else null.
     */
    static Moment idleAbove(RunInput in, List<String> assumed) throws IOException {
        if (in.moment() != null || !Files.isRegularFile(in.path()) || Files.size(in.path()) > ABOVE_MAX_BYTES) {
            return null;
        }
        List<String> lines = TextLines.split(TextBytes.decode(Files.readAllBytes(in.path())));
        Optional<StatedIdle> said = IdlePhrases.aboveFirstTable(lines);
        return said.map(s -> baseline(in, "(line " + s.line() + " says \"" + s.phrase() + "\")", assumed)).orElse(null);
    }

    private static Moment baseline(RunInput in, String where, List<String> assumed) {
        assumed.add(in.shown() + " " + where + " taken at baseline, idle devices before the server started (from the"
                + " prose above the table; say otherwise with --moment " + in.path().getFileName() + "=MOMENT)");
        return Moment.BASELINE;
    }
}
