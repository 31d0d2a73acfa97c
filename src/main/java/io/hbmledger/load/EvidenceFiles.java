package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.run.FileProblem;
import io.hbmledger.run.Moment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Reads a run's evidence files one by one, sorting what each gives: observations tagged with
 * file, format, moment, rank and device; msprof entries, kept to be read as a whole at the run's
 * instants; a saved weights manifest; loose checkpoint files. A file that cannot be used is an
 * error, kept so that every bad file is named at once.
 */
final class EvidenceFiles {

    final List<TaggedObservation> tagged = new ArrayList<>();
    /** Observations whose rank the run states (run.json evidence[].rank), kept on retagging. */
    private final java.util.Set<TaggedObservation> rankStated = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    final List<EvidenceSet.FileInfo> infos = new ArrayList<>();
    final List<MsprofItem> msprofItems = new ArrayList<>();
    final List<CheckpointLoader.LooseFile> loose = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
    /** Evidence files given by hand that could not be used, each with why: skipped, not fatal. */
    final List<String> skipped = new ArrayList<>();
    /** What was assumed while reading (a moment from a file name), for the report's notes. */
    final List<String> assumed = new ArrayList<>();
    /** Files given by hand (no run.json): an unusable one is skipped and named, not fatal. */
    boolean skipUnusable;
    /** The first weights manifest among the evidence, or null. */
    CheckpointEvidence manifest;

    private final EvidenceReaders readers = EvidenceReaders.all();
    private final Layout layout;
    private final int pipeline;
    private final CheckpointLoader checkpoints;
    private final Consumer<String> warn;

    EvidenceFiles(Layout layout, int pipeline, CheckpointLoader checkpoints, Consumer<String> warn) {
        this.layout = layout;
        this.pipeline = pipeline;
        this.checkpoints = checkpoints;
        this.warn = warn;
    }

    void read(RunInput in) {
        try {
            Optional<EvidenceFormat> msprofFormat = MsprofFormats.format(in.path());
            if (msprofFormat.isPresent()) {
                msprofItems.add(new MsprofItem(in.path(), in.sourceName()));
                infos.add(new EvidenceSet.FileInfo(in.sourceName(), msprofFormat.get(), in.moment()));
                return;
            }
            if (CheckpointLoader.isManifest(in.path())) {
                if (manifest == null) {
                    manifest = checkpoints.manifest(in.path(), in.shown(), in.sourceName());
                }
                infos.add(new EvidenceSet.FileInfo(in.sourceName(), EvidenceFormat.WEIGHTS_MANIFEST, in.moment()));
                return;
            }
            EvidenceFile f = readers.read(in.path(), in.shown());
            if (f.usable() && CheckpointLoader.isCheckpointFormat(f.format())) {
                loose.add(new CheckpointLoader.LooseFile(in.path(), in.shown(), in.sourceName(), f.format()));
            }
            if (!f.usable()) {
                f.warnings().forEach(w -> unusable(in.shown() + ": " + w));
                return;
            }
            f.warnings().forEach(w -> warn.accept(in.shown() + ": " + w));
            if (f.format() == EvidenceFormat.PASTED_TEXT && !f.parts().isEmpty()) {
                // each block of a paste is evidence of its own kind: the rules see an npu-smi
                // table as an npu-smi sample and a log excerpt as a log, citing the paste's lines
                List<Moment> said = PastedMoments.moments(in, f.parts(), assumed, warn);
                for (int i = 0; i < f.parts().size(); i++) {
                    EvidencePart part = f.parts().get(i);
                    if (part.read()) {
                        add(in, part.format(), part.observations(), said.get(i));
                    }
                }
            } else {
                add(in, f.format(), f.observations(), f.format().isDeviceSample() ? PastedMoments.statedAbove(in, assumed) : null);
            }
        } catch (EvidenceException e) {
            unusable(e.getMessage());
        } catch (IOException e) {
            unusable(in.shown() + ": " + FileProblem.cannotRead(e));
        }
    }

    private void unusable(String why) {
        (skipUnusable ? skipped : errors).add(why);
    }

    /** @param stated the moment the paste's prose gives this block, or null */
    private void add(RunInput in, EvidenceFormat format, List<Observation> observations, Moment stated) {
        Moment moment = in.moment() != null ? in.moment() : stated;
        if (moment == null && format.isDeviceSample()) {
            String name = in.path().getFileName().toString();
            moment = MomentFromName.of(name).orElse(null);
            if (moment != null) {
                assumed.add(in.shown() + " taken at " + moment.jsonName() + " (from its file name; say otherwise with"
                        + " --moment " + name + "=MOMENT)");
            }
        }
        EvidenceSet.FileInfo info = new EvidenceSet.FileInfo(in.sourceName(), format, moment);
        if (!infos.contains(info) && !sameSample(info)) {
            infos.add(info);
        }
        for (Observation o : observations) {
            Integer rank = in.rank() != null ? in.rank()
                    : RankLabels.rankOf(o.context().process(), o.context().dpRank(), layout.tp(), pipeline, layout.dp());
            TaggedObservation t = new TaggedObservation(o, in.sourceName(), format, moment, rank, in.device());
            tagged.add(t);
            if (in.rank() != null) {
                rankStated.add(t);
            }
        }
    }

    /**
     * True when the file is already listed as a device sample of the same tool at the same
     * moment: an {@code npu-smi info} table and an {@code npu-smi info -t usages} block of one
     * paste are one sample listing (EvidenceSet.smiOf reads all of the file's rows at its moment),
     * not two files taken at that moment.
     */
    private boolean sameSample(EvidenceSet.FileInfo info) {
        return info.format().isDeviceSample() && infos.stream().anyMatch(f -> f.file().equals(info.file())
                && f.format().family() == info.format().family() && java.util.Objects.equals(f.moment(), info.moment()));
    }

    /** True when some observation is a memory figure. */
    boolean anyFigure() {
        // a refusal in tokens ("max seq len (N) is larger than ... KV cache (M)") is an answer too
        return tagged.stream().anyMatch(t -> t.o().isBytes() || t.quantity() == io.hbmledger.evidence.Quantity.MEMORY_FAILURE);
    }

    /**
     * Ranks worked out again from the worker labels under a layout read from the evidence
     * itself (the log's TP size): a rank the run states stays.
     */
    void retag(Layout l, int pp) {
        for (int i = 0; i < tagged.size(); i++) {
            TaggedObservation t = tagged.get(i);
            if (rankStated.contains(t)) {
                continue;
            }
            Integer rank = RankLabels.rankOf(t.o().context().process(), t.o().context().dpRank(), l.tp(), pp, l.dp());
            tagged.set(i, new TaggedObservation(t.o(), t.file(), t.format(), t.moment(), rank, t.device()));
        }
    }
}
