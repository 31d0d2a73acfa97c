package io.hbmledger.evidence.smitable;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.PhysicalBounds;
import io.hbmledger.evidence.Quote;
import java.util.ArrayList;
import java.util.List;

/**
 * What a pure smi parser took from text: observations in line order and warnings that name
 * their line ({@code "line 7: ..."}) or CSV row ({@code "row 3: ..."}).
 *
 * <p>Every npu-smi and nvidia-smi parser ends here, so this is where a memory figure beyond any
 * device ({@link PhysicalBounds#DEVICE_BYTES}) is left absent with a warning: an nvidia-smi CSV row
 * with {@code 8318311 MiB} used (NvidiaSmiFuzzTest) was taken as 7.9 TiB on one GPU.
 */
public record SmiParse(List<Observation> observations, List<String> warnings) {

    public SmiParse {
        List<Observation> kept = new ArrayList<>(observations.size());
        List<String> said = new ArrayList<>(warnings);
        for (Observation o : observations) {
            if (o.bytes() != null && o.bytes() > PhysicalBounds.DEVICE_BYTES) {
                said.add("line " + o.line() + ": " + o.quantity().contractName() + " " + Quote.of(o.text()) + " is " + o.bytes()
                        + " bytes, more than any device holds (1 TiB); left absent");
            } else {
                kept.add(o);
            }
        }
        observations = List.copyOf(kept);
        warnings = List.copyOf(said);
    }
}
