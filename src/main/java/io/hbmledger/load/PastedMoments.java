package io.hbmledger.load;

import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.StatedIdle;
import io.hbmledger.evidence.StatedStart;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.paste.IdlePhrases;
import io.hbmledger.run.Moment;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The moment a paste's own prose gives its device tables: "Before starting vLLM, npu-smi shows:"
 * above a table, or "The above is before starting vLLM." right below it (in a paste, or at the top
 * of a file read whole as npu-smi output) makes it an idle baseline ({@link StatedIdle}), so that
 * it is not compared with the server's budget as a sample of the running server; in a paste that
 * also holds a table said to be taken "after starting vLLM" ({@link StatedStart}), that one is the
 * ready sample. A moment given by the user (--moment, run.json) wins. A paste with an idle table
 * and another that the prose does not place is left without a moment, with a warning that says
 * how to give each its own.
 */
final class PastedMoments {

    private PastedMoments() {
    }

    /**
     * The moment the prose gives each part of a paste: when it says a table shows idle devices,
     * {@link Moment#BASELINE} for it, and {@link Moment#READY} for a table it says was taken after
     * the start ("before: ... after starting vLLM: ..."). When some table is said to be idle and
     * another is said to be neither, no moment is taken.
     *
     * @param assumed receives the note saying what was taken from the prose
     * @param warn receives the warning for a paste whose tables the prose does not all place
     * @return one moment per part, in the parts' order; null where the prose gives none
     */
    static List<Moment> moments(RunInput in, List<EvidencePart> parts, List<String> assumed, Consumer<String> warn) {
        List<Moment> out = new ArrayList<>(Collections.nCopies(parts.size(), (Moment) null));
        List<EvidencePart> tables = parts.stream().filter(p -> p.read() && p.format().isDeviceSample()).toList();
        List<EvidencePart> idle = tables.stream().filter(p -> p.idle() != null).toList();
        if (in.moment() != null || idle.isEmpty()) {
            return out;
        }
        List<EvidencePart> unsaid = tables.stream().filter(p -> p.idle() == null && p.started() == null).toList();
        if (!unsaid.isEmpty()) {
            warn.accept(in.shown() + ": the prose says " + said(idle.get(0)) + " shows idle devices, before the server started,"
                    + " but not the other tables of the paste (nor that " + unsaid.get(0).lines() + " were taken after the"
                    + " start); no moment was taken from it: say when each was taken (\"after starting vLLM:\")"
                    + " or put each table in a file of its own and give its moment (--moment FILE=baseline, --moment FILE=ready)");
            return out;
        }
        List<String> each = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            EvidencePart p = parts.get(i);
            if (tables.contains(p)) {
                out.set(i, p.idle() != null ? Moment.BASELINE : Moment.READY);
                each.add(said(p) + " taken at " + (p.idle() != null ? "baseline, idle devices before the server started"
                        : "ready, after the server started"));
            }
        }
        if (each.size() == idle.size()) {
            baseline(in, said(idle.get(0)), idle.get(0).idle().line() < idle.get(0).firstLine() ? "above" : "below", assumed);
        } else {
            assumed.add(in.shown() + " " + String.join("; ", each) + " (from the prose beside each table; --moment gives"
                    + " one moment to the whole file, so to give them others put each table in a file of its own)");
        }
        return out;
    }

    /** {@code lines 4-62 (line 1 says "Before starting")}. */
    private static String said(EvidencePart table) {
        int line = table.idle() != null ? table.idle().line() : table.started().line();
        String phrase = table.idle() != null ? table.idle().phrase() : table.started().phrase();
        return table.lines() + " (line " + line + " says \"" + phrase + "\")";
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
        // a bare "before:" says idle only beside a table said to be after the start: not in a file of one table
        Optional<StatedIdle> said = IdlePhrases.aboveFirstTable(lines).filter(s -> !s.bare());
        return said.map(s -> baseline(in, "(line " + s.line() + " says \"" + s.phrase() + "\")", "above", assumed)).orElse(null);
    }

    /** @param side where the prose is: {@code above} or {@code below} the table */
    private static Moment baseline(RunInput in, String where, String side, List<String> assumed) {
        assumed.add(in.shown() + " " + where + " taken at baseline, idle devices before the server started (from the"
                + " prose " + side + " the table; say otherwise with --moment " + in.path().getFileName() + "=MOMENT)");
        return Moment.BASELINE;
    }
}
