package io.hbmledger.ledger.check;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;






/**
 * What the runtime offers the framework (vLLM's total, torch's "total capacity") against the
 * device capacity the sample shows. The runtime keeps a few percent for itself (an Atlas A3
 * offers 60.97 of 64 GiB, an 80 GB H100 79.2 of 79.6 GiB), so a gap up to 10% of capacity
 * passes. A larger gap, or a runtime total above the capacity, means the log and the sample
 * are not of the same device (another host, another chip model, a MIG slice or a limit on the
 * process): never a pass, and never a negative amount "kept out of reach".
 */
public final class TotalVsCapacity {

    static final double TOLERANCE = 0.10;

    private TotalVsCapacity() {
    }

    static Check check(long total, Source totalSource, long capacity, String smi) {
        long gap = capacity - total;
        String head = "the runtime reports " + Units.gib(total) + " total (" + totalSource.shortForm() + ") of the "
                + Units.gib(capacity) + " " + smi + " shows";
        if (gap < 0) {
            return new Check(Check.TOTAL_VS_CAPACITY, Check.Status.WARN, head + ": " + Units.gib(-gap)
                    + " MORE than the device has, so the log and the sample are not of the same device"
                    + " (another host or chip model?)");
        }
        if (gap > capacity * TOLERANCE) {
            return new Check(Check.TOTAL_VS_CAPACITY, Check.Status.WARN, head + ": " + Units.gib(gap)
                    + " less, far more than a runtime keeps for itself (over " + Math.round(TOLERANCE * 100)
                    + "% of capacity): the log and the sample are probably not of the same device,"
                    + " or the process was limited to part of it");
        }
        return new Check(Check.TOTAL_VS_CAPACITY, Check.Status.PASS, head + ": " + Units.gib(gap)
                + " is kept out of the framework's reach");
    }
}
