package io.hbmledger.ledger.smi;

import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import java.util.List;

/** Words for which of several device samples at one moment a ledger uses. */
public final class SampleChoice {

    private SampleChoice() {
    }

    /**
     * "" for a lone sample; otherwise which one was used and how many were seen, e.g. "; the
     * last of 2 samples of this device in both.txt (its rows at lines 9, 108); samples are
     * never added up".
     */
    static String describe(EvidenceSet ev, List<EvidenceSet.FileInfo> files, EvidenceSet.FileInfo used,
                           int logicalDevice, TaggedObservation row) {
        StringBuilder b = new StringBuilder();
        List<List<TaggedObservation>> samples = ev.smiSamples(used, logicalDevice);
        if (samples.size() > 1) {
            StringBuilder starts = new StringBuilder();
            for (List<TaggedObservation> s : samples) {
                starts.append(starts.length() == 0 ? "" : ", ").append(SmiSamples.firstLine(s));
            }
            b.append("; the last of ").append(samples.size()).append(" samples of this device in ").append(used.file())
                    .append(" (its rows at lines ").append(starts).append("), line ").append(row.o().line()).append(" used");
        }
        if (files.size() > 1) {
            StringBuilder names = new StringBuilder();
            for (EvidenceSet.FileInfo f : files) {
                names.append(names.length() == 0 ? "" : ", ").append(f.file());
            }
            b.append("; ").append(files.size()).append(" files were taken at this moment (").append(names)
                    .append("): the last listed is used");
        }
        if (b.length() > 0) {
            b.append("; samples are never added up");
        }
        return b.toString();
    }
}
