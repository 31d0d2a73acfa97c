package io.hbmledger.ledger.smi;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.TaggedObservation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Splits one device-sample file (npu-smi, nvidia-smi) into its samples. A file may hold several
 * samples ({@code watch npu-smi info} captures, files joined with cat, nvidia-smi {@code -l}
 * loops): their figures must never be added up. A new sample starts at a usage row (hbm_used,
 * memory_used, fb_used, hbm_capacity) whose device already has that row in the current sample, or
 * at a usage row that follows the current sample's process table. The process rows after a
 * sample's usage rows belong to that sample.
 */
public final class SmiSamples {

    private static final Set<Quantity> USAGE = Set.of(Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED, Quantity.HBM_CAPACITY,
            Quantity.MEMORY_CAPACITY, Quantity.HBM_USAGE_RATE);

    private SmiSamples() {
    }

    /** The file's observations grouped by sample, in line order. */
    public static List<List<TaggedObservation>> split(List<TaggedObservation> fileRows) {
        List<TaggedObservation> rows = new ArrayList<>(fileRows);
        rows.sort(Comparator.comparingInt(t -> t.o().line()));
        List<List<TaggedObservation>> samples = new ArrayList<>();
        List<TaggedObservation> current = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean processSeen = false;
        for (TaggedObservation t : rows) {
            if (USAGE.contains(t.quantity())) {
                String key = Objects.toString(t.o().context().device(), "") + "|" + t.o().context().deviceId() + "|" + t.quantity();
                if (processSeen || seen.contains(key)) {
                    samples.add(current);
                    current = new ArrayList<>();
                    seen.clear();
                    processSeen = false;
                }
                seen.add(key);
            } else if (t.quantity() == Quantity.PROCESS_MEMORY || t.quantity() == Quantity.PROCESS_COUNT) {
                processSeen = true;
            }
            current.add(t);
        }
        if (!current.isEmpty()) {
            samples.add(current);
        }
        return samples;
    }

    /** 1-based first line of a sample. */
    static int firstLine(List<TaggedObservation> sample) {
        return sample.isEmpty() ? 0 : sample.get(0).o().line();
    }
}
