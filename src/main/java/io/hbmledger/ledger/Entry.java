package io.hbmledger.ledger;

import java.util.List;

/**
 * One line of a device's ledger.
 *
 * @param component a {@link Component} name
 * @param bytes the amount, null when unknown (never 0 for "not measured")
 * @param confidence how sure the amount is
 * @param sources the evidence lines the amount came from
 * @param note what the number is, in a sentence (moment, rank, what it includes)
 * @param moment the moment the evidence was taken ({@code baseline}, {@code ready},
 *     {@code startup}, ...), null when not known
 * @param counted whether the amount is part of the sum that the residual is taken against:
 *     false for figures that overlap counted ones or are not resident at the ledger's moment
 * @param arithmetic the calculation with its inputs: required for inferred amounts, given for
 *     estimated ones worked out by formula, null for amounts read as is
 */
public record Entry(String component, Long bytes, Confidence confidence, List<Source> sources,
                    String note, String moment, boolean counted, String arithmetic) {

    public Entry {
        sources = List.copyOf(sources);
        if ((bytes == null) != (confidence == Confidence.UNKNOWN)) {
            throw new IllegalArgumentException(component + ": bytes must be null exactly when confidence is unknown");
        }
        if (confidence == Confidence.INFERRED && arithmetic == null) {
            // README: inferred = "derived from other lines, arithmetic shown"
            throw new IllegalArgumentException(component + ": an inferred amount shows its arithmetic");
        }
    }

    public static Entry unknown(String component, String note) {
        return new Entry(component, null, Confidence.UNKNOWN, List.of(), note, null, false, null);
    }

    public Entry notCounted(String why) {
        return new Entry(component, bytes, confidence, sources,
                note == null || note.isEmpty() ? why : note + "; " + why, moment, false, arithmetic);
    }

    public boolean known() {
        return bytes != null;
    }
}
