package io.hbmledger.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.Source;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one-screen view of synthetic runs of 1, 8, 16 and 64 devices: one row per device, the same
 * layout whatever the count, every line within 120 columns, a warning shared by every device
 * printed once, and each cell worked out by hand from the device's numbers.
 */
class SummaryTextWriterTest {

    private static final long GIB = 1L << 30;

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 16, 64})
    void oneRowPerDeviceWithinTheWidth(int n) {
        List<DeviceLedger> devices = new ArrayList<>();
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            devices.add(device(i));
            ids.add(i);
        }
        Ledger ledger = new Ledger(Ledger.Status.INCOMPLETE, List.of("no msprof evidence in the run: HCCL is not measured"
                + " (a long reason that must wrap rather than run past the edge of the terminal window, like the"
                + " msprof paths /runs/r1/evidence/msprof/PROF_000001/mindstudio_profiler_output/npu_mem.csv did)"),
                devices, List.of(), List.of());
        StringWriter buf = new StringWriter();
        new SummaryTextWriter().write(ledger, List.of(), Layout.of(n, 1, ids, List.of(), "m"), "/runs/r1", null, new PrintWriter(buf));
        List<String> lines = buf.toString().lines().toList();

        assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(120));
        assertThat(lines.get(0)).isEqualTo("HBM ledger for /runs/r1   status: incomplete   moment: ready");
        // every device once; a fixed number of other lines, whatever the device count
        assertThat(lines.stream().filter(l -> l.startsWith("  npu:")).count()).isEqualTo(n);
        int deploymentLines = n == 64 ? 3 : 1; // "devices [0, 1, ..., 63]" wraps
        assertThat(lines.size() - n - deploymentLines).as(buf.toString()).isEqualTo(11);
        // device 3 (if any): capacity 64, used 40+3 = 43, weights 16, kv 20, hccl unknown,
        // residual 43 - (2 + 16 + 20) = +5.00, free 64 - 43 = 21.00
        if (n > 3) {
            assertThat(lines).anySatisfy(l -> assertThat(l).matches(
                    "  npu:3/chip:0\\s+3\\s+64\\.00\\s+43\\.00\\s+2\\.00\\s+16\\.00\\s+20\\.00\\s+\\+5\\.00\\s+21\\.00"));
        }
        // device 0: used 40, residual 40 - 38 = +2.00
        assertThat(lines).anySatisfy(l -> assertThat(l).matches(
                "  npu:0/chip:0\\s+0\\s+64\\.00\\s+40\\.00\\s+2\\.00\\s+16\\.00\\s+20\\.00\\s+\\+2\\.00\\s+24\\.00"));
        // HCCL, unknown everywhere, is named once instead of a column of "?"
        assertThat(lines).contains("  unknown on every device: hccl");
        // the one check that warns on every device: one line, with the count of the others
        assertThat(lines.stream().filter(l -> l.contains("WARN vllm_budget_vs_device")).count()).isEqualTo(1);
        if (n > 1) {
            assertThat(buf.toString()).contains("(and " + (n - 1) + " more devices)");
        }
        // the path is shown relative to the run directory
        assertThat(buf.toString()).contains("evidence/msprof/PROF_000001").doesNotContain("/runs/r1/evidence");
    }

    /**
     * An msprof run shows a dozen lines beside the sum (peaks, process views, vLLM's lumps): the
     * table keeps the counted ones within 120 columns and names the others once, for --detail.
     */
    @Test
    void linesOutsideTheSumMakeWayWhenTheTableIsTooWide() {
        Source s = new Source("/runs/r1/ready.txt", 9, "x");
        List<Entry> entries = new ArrayList<>(List.of(
                new Entry("weights", 16 * GIB, Confidence.REPORTED, List.of(s), "w", "startup", true, null),
                new Entry("kv_cache", 20 * GIB, Confidence.REPORTED, List.of(s), "kv", "startup", true, null)));
        for (String shown : List.of("driver_baseline", "activation_peak", "non_torch", "other_modules",
                "server_processes", "device_peak", "activation_peak_under_load", "allocator_cache", "torch_allocated")) {
            entries.add(new Entry(shown, GIB, Confidence.MEASURED, List.of(s), "shown", "ready", false, null));
        }
        DeviceLedger d = new DeviceLedger("npu:0/chip:0", 0, List.of(0), "ready",
                new DeviceLedger.Amount(64 * GIB, s, "capacity"), new DeviceLedger.Amount(40 * GIB, s, "used"),
                entries, 4 * GIB, "residual", List.of());
        Ledger ledger = new Ledger(Ledger.Status.COMPLETE, List.of(), List.of(d), List.of(), List.of());
        StringWriter buf = new StringWriter();
        new SummaryTextWriter().write(ledger, List.of(), Layout.of(1, 1, List.of(0), List.of(), "m"), "/runs/r1", null,
                new PrintWriter(buf));
        List<String> lines = buf.toString().lines().toList();

        assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(120));
        // used 40, weights 16 + kv 20 counted, residual 40 - 36 = +4.00, free 64 - 40 = 24.00
        assertThat(lines).anySatisfy(l -> assertThat(l).matches(
                "  npu:0/chip:0\\s+0\\s+64\\.00\\s+40\\.00\\s+16\\.00\\s+20\\.00\\s+\\+4\\.00\\s+24\\.00"));
        assertThat(buf.toString()).contains("not in the sum, in --detail: driver_baseline, activation_peak");
    }

    /** Device i: 64 GiB, used 40 + i GiB, driver 2, weights 16, KV 20, HCCL unknown. */
    private static DeviceLedger device(int i) {
        Source smi = new Source("/runs/r1/evidence/npu-smi-ready.txt", 9 + i, "x");
        long used = (40 + i) * GIB;
        List<Entry> entries = List.of(
                new Entry("driver_baseline", 2 * GIB, Confidence.MEASURED, List.of(smi), "idle", "baseline", true, null),
                new Entry("weights", 16 * GIB, Confidence.REPORTED, List.of(smi), "w", "startup", true, null),
                new Entry("kv_cache", 20 * GIB, Confidence.REPORTED, List.of(smi), "kv", "startup", true, null),
                Entry.unknown("hccl", "needs msprof"));
        return new DeviceLedger("npu:" + i + "/chip:0", i, List.of(i), "ready",
                new DeviceLedger.Amount(64 * GIB, smi, "capacity"), new DeviceLedger.Amount(used, smi, "used"),
                entries, used - 38 * GIB, "residual", List.of(
                        new Check(Check.VLLM_BUDGET_VS_DEVICE, Check.Status.WARN, "used exceeds the budget by " + i + " GiB")));
    }
}
