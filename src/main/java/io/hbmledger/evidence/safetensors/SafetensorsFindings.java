package io.hbmledger.evidence.safetensors;

import io.hbmledger.evidence.Quote;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the tensors of a header say about themselves that does not stop the reading: dtypes
 * this reader does not know (one finding per name, with a count), and tensors whose shape x
 * dtype disagrees with their offsets (the offsets are what the data holds, so their bytes are
 * kept). Used for a file's warnings and for a checkpoint's notes alike.
 */
public final class SafetensorsFindings {

    /** Disagreeing tensors named one by one; the rest are counted. */
    private static final int NAMED = 5;

    private SafetensorsFindings() {
    }

    /** Findings in header order; empty when every dtype is known and every size agrees. */
    public static List<String> of(List<SafetensorsTensor> tensors) {
        Map<String, List<SafetensorsTensor>> unknown = new LinkedHashMap<>();
        List<String> out = new ArrayList<>();
        int disagreeing = 0;
        for (SafetensorsTensor t : tensors) {
            if (t.dtype() == null) {
                unknown.computeIfAbsent(t.dtypeName(), k -> new ArrayList<>()).add(t);
                continue;
            }
            Optional<String> d = t.sizeDisagreement();
            if (d.isPresent() && disagreeing++ < NAMED) {
                out.add("tensor " + Quote.doubleQuoted(t.name()) + ": " + d.get()
                        + "; its bytes are taken from data_offsets (what the file holds)");
            }
        }
        if (disagreeing > NAMED) {
            out.add((disagreeing - NAMED) + " more tensors whose shape x dtype disagrees with data_offsets");
        }
        List<String> dtypes = new ArrayList<>();
        for (Map.Entry<String, List<SafetensorsTensor>> e : unknown.entrySet()) {
            List<SafetensorsTensor> ts = e.getValue();
            long bytes = ts.stream().mapToLong(SafetensorsTensor::bytes).sum();
            dtypes.add("dtype " + Quote.doubleQuoted(e.getKey()) + " is not one this reader knows (" + ts.size()
                    + (ts.size() == 1 ? " tensor, " : " tensors, the first ") + Quote.doubleQuoted(ts.get(0).name())
                    + "): their " + bytes + " bytes are exact from data_offsets, their element type is unknown;"
                    + " known: " + SafetensorsDtype.names());
        }
        dtypes.addAll(out);
        return dtypes;
    }
}
