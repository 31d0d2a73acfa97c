package io.hbmledger.load;

import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.paste.IdlePhrases;
import io.hbmledger.run.Moment;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * The moment a paste's own prose gives its device tables: "Before starting vLLM, npu-smi shows:"
 * above a table, or "The above is before starting vLLM." right below it (in a paste, or at the top
 * of a file read whole as npu-smi output) makes it an idle baseline
 * ({@link io.hbmledger.evidence.StatedIdle}), so that it is not compared with the server's budget
 * as a sample of the running server; a table said to be taken "after starting vLLM", "启动后"
 * ({@link io.hbmledger.evidence.StatedStart}), alone or beside an idle one, is the ready sample.
 * A moment given by the user (--moment, run.json) wins. A paste with an idle table
 * and another that the prose does not place is left without a moment, with a warning that says
 * how to give each its own.
 */
final class PastedMoments {

    private PastedMoments() {
    }

    /**
     * The moment the prose gives each part of a paste: when it says a table shows idle devices,
     * {@link Moment#BASELINE} for it, and {@link Moment#READY} for a table it says was taken after
     * the start ("After vLLM started, npu-smi shows:", or "before: ... after starting vLLM: ...").
     * When some table is said to be idle and another is said to be neither, no moment is taken.
     *
     * @param assumed receives the note saying what was taken from the prose
     * @param warn receives the warning for a paste whose tables the prose does not all place
     * @return one moment per part, in the parts' order; null where the prose gives none
     */
    static List<Moment> moments(RunInput in, List<EvidencePart> parts, List<String> assumed, Consumer<String> warn) {
        List<Moment> out = new ArrayList<>(Collections.nCopies(parts.size(), (Moment) null));
        List<EvidencePart> tables = parts.stream().filter(p -> p.read() && p.format().isDeviceSample()).toList();
        List<EvidencePart> idle = tables.stream().filter(p -> p.idle() != null).toList();
        List<EvidencePart> started = tables.stream().filter(p -> p.started() != null).toList();
        if (in.moment() != null || idle.isEmpty() && started.isEmpty()) {
            return out;
        }
        List<EvidencePart> unsaid = tables.stream().filter(p -> p.idle() == null && p.started() == null).toList();
        if (!idle.isEmpty() && !unsaid.isEmpty()) {
            warn.accept(in.shown() + ": the prose says " + said(idle.get(0)) + " shows idle devices, before the server started,"
                    + " but not the other tables of the paste (nor that " + unsaid.get(0).lines() + " were taken after the"
                    + " start); no moment was taken from it: say when each was taken (\"after starting vLLM:\")"
                    + " or put each table in a file of its own and give its moment (--moment FILE=baseline, --moment FILE=ready)");
            return out;
        }
        // "After vLLM started, npu-smi shows:" above a table is as clear as "Before starting" above
        // another: the one is the ready sample, the other the baseline; a table the prose does not
        // place, beside only tables said to be taken after the start, keeps no moment (and is said to)
        List<String> each = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            EvidencePart p = parts.get(i);
            if (p.idle() != null || p.started() != null) {
                out.set(i, moment(p));
                each.add(said(p) + " taken at " + (p.idle() != null ? IDLE : STARTED));
            }
        }
        if (each.size() == 1) {
            EvidencePart only = idle.isEmpty() ? started.get(0) : idle.get(0);
            note(in, said(only), side(only), moment(only), assumed);
        } else {
            assumed.add(in.shown() + " " + String.join("; ", each) + " (from the prose beside each table; --moment gives"
                    + " one moment to the whole file, so to give them others put each table in a file of its own)");
        }
        return out;
    }

    private static final String IDLE = "baseline, idle devices before the server started";
    private static final String STARTED = "ready, after the server started";

    private static Moment moment(EvidencePart table) {
        return table.idle() != null ? Moment.BASELINE : Moment.READY;
    }

    /** Where the prose that places {@code table} is: {@code above} or {@code below} it. */
    private static String side(EvidencePart table) {
        int line = table.idle() != null ? table.idle().line() : table.started().line();
        return line < table.firstLine() ? "above" : "below";
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
     * A device-sample file read whole ("Before starting vLLM:" or "After starting vLLM:" then the
     * npu-smi table, no fence): {@link Moment#BASELINE} or {@link Moment#READY} when the lines
     * above its table say so, else null.
     */
    static Moment statedAbove(RunInput in, List<String> assumed) throws IOException {
        if (in.moment() != null || !Files.isRegularFile(in.path()) || Files.size(in.path()) > ABOVE_MAX_BYTES) {
            return null;
        }
        List<String> lines = TextLines.split(TextBytes.decode(Files.readAllBytes(in.path())));
        IdlePhrases.Said said = IdlePhrases.aboveFirstTable(lines);
        // a bare "before:" says idle only beside a table said to be after the start: not in a file of one table
        if (said.idle() != null && !said.idle().bare()) {
            return note(in, "(line " + said.idle().line() + " says \"" + said.idle().phrase() + "\")", "above", Moment.BASELINE, assumed);
        }
        if (said.started() != null) {
            return note(in, "(line " + said.started().line() + " says \"" + said.started().phrase() + "\")", "above", Moment.READY,
                    assumed);
        }
        return null;
    }

    /** @param side where the prose is: {@code above} or {@code below} the table */
    private static Moment note(RunInput in, String where, String side, Moment moment, List<String> assumed) {
        assumed.add(in.shown() + " " + where + " taken at " + (moment == Moment.BASELINE ? IDLE : STARTED) + " (from the"
                + " prose " + side + " the table; say otherwise with --moment " + in.path().getFileName() + "=MOMENT)");
        return moment;
    }
}
