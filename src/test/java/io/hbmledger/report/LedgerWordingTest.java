package io.hbmledger.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.Units;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the text ledger says must be what the numbers are: no "-0.00", no header over nothing. */
class LedgerWordingTest {

    private static final long MIB = 1L << 20;

    private static String text(DeviceLedger d) {
        Ledger l = new Ledger(Ledger.Status.INCOMPLETE, List.of(), List.of(d), List.of(), List.of());
        StringWriter w = new StringWriter();
        new LedgerTextWriter().write(l, Layout.of(1, 1, List.of(0), List.of(), null), "run", new PrintWriter(w));
        return w.toString();
    }

    /** used 40000 MiB; weights 39999.5 MiB counted: residual +0.5 MiB, or with 40000.5 MiB, -0.5 MiB. */
    private static DeviceLedger device(long weights, List<Check> checks) {
        long used = 40000 * MIB;
        Source s = new Source("npu-smi.txt", 9, "40000");
        return new DeviceLedger("npu:0/chip:0", 0, List.of(0), "ready",
                new DeviceLedger.Amount(65536 * MIB, s, "HBM-Usage"), new DeviceLedger.Amount(used, s, "HBM-Usage"),
                List.of(new Entry("weights", weights, Confidence.REPORTED, List.of(new Source("serve.log", 46, "x")),
                        "w", "startup", true, null)),
                used - weights, "r", checks);
    }

    @Test
    void aTinyResidualIsNotShownAsZeroOrMinusZero() {
        // 40000 MiB - 40000.5 MiB = -524288 B = -0.0005 GiB: "%.2f" printed "-0.00"
        String t = text(device(40000 * MIB + MIB / 2, List.of()));
        assertThat(t).containsPattern("residual\\s+-<0\\.01\\s+inferred").doesNotContain("-0.00");
        // +524288 B: not "0.00", which would say nothing is left over
        assertThat(text(device(40000 * MIB - MIB / 2, List.of()))).containsPattern("residual\\s+<0\\.01\\s+inferred");
        // exactly zero is 0.00
        assertThat(text(device(40000 * MIB, List.of()))).containsPattern("residual\\s+0\\.00\\s+inferred");
    }

    @Test
    void gibRoundsToTwoDecimalsAndSaysWhenAnAmountIsBelowThat() {
        assertThat(Units.gibNumber(0)).isEqualTo("0.00");
        // GiB / 200 = 5368709.12 B is the first amount that rounds to 0.01
        assertThat(Units.gibNumber(5_368_709)).isEqualTo("<0.01");
        assertThat(Units.gibNumber(5_368_710)).isEqualTo("0.01");
        assertThat(Units.gibNumber(-5_368_709)).isEqualTo("-<0.01");
        assertThat(Units.gibNumber(-(1L << 30))).isEqualTo("-1.00");
        assertThat(Units.gib(-1)).isEqualTo("-<0.01 GiB");
    }

    @Test
    void aDeviceWithoutChecksHasNoChecksHeader() {
        assertThat(text(device(30000 * MIB, List.of()))).doesNotContain("  checks");
        assertThat(text(device(30000 * MIB, List.of(new Check("ledger_sum_vs_used", Check.Status.PASS, "ok")))))
                .contains("  checks\n    ledger_sum_vs_used  pass  ok");
    }
}
