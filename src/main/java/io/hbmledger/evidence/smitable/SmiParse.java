package io.hbmledger.evidence.smitable;

import io.hbmledger.evidence.Observation;
import java.util.List;

/**
 * What a pure smi parser took from text: observations in line order and warnings that name
 * their line ({@code "line 7: ..."}) or CSV row ({@code "row 3: ..."}).
 */
public record SmiParse(List<Observation> observations, List<String> warnings) {

    public SmiParse {
        observations = List.copyOf(observations);
        warnings = List.copyOf(warnings);
    }
}
