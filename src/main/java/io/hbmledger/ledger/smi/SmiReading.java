package io.hbmledger.ledger.smi;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger.Amount;
import io.hbmledger.ledger.TaggedObservation;

/**
 * How sure a device-sample figure is. Read under its own column header it is measured; npu-smi
 * rows pasted without their header carry the evidence mark {@code inferred} (the column and its
 * unit were taken from npu-smi's fixed layout), so what is built on them is inferred, and the
 * arithmetic names that step.
 */
final class SmiReading {

    private SmiReading() {
    }

    /** The figure as a ledger amount (bytes), measured or inferred. */
    static Amount amount(TaggedObservation t, String note) {
        return isInferred(t)
                ? Amount.inferred(t.o().bytes(), t.source(), note, arithmetic(t))
                : new Amount(t.o().bytes(), t.source(), note);
    }

    static boolean isInferred(TaggedObservation t) {
        return t.o().context().inferred();
    }

    static Confidence confidence(TaggedObservation t) {
        return isInferred(t) ? Confidence.INFERRED : Confidence.MEASURED;
    }

    /** For an inferred figure: the layout step and the MiB to bytes product; null for a measured one. */
    static String arithmetic(TaggedObservation t) {
        if (!isInferred(t)) {
            return null;
        }
        return "\"" + t.o().text() + "\" read as " + t.quantity().contractName() + " in npu-smi info's layout"
                + " (row pasted without its header): " + t.o().text() + " MiB x 1048576 = " + t.o().bytes() + " B";
    }
}
