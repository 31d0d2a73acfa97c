package io.hbmledger.ledger.owner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.DeviceLedger.Amount;
import io.hbmledger.ledger.smi.SmiSampleRule;
import io.hbmledger.ledger.vllm.LedgerMomentRule;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link UsedRule} owns used: it takes the npu-smi sample's reading that {@link SmiSampleRule}
 * made, and a second decision of any owned figure is refused ({@link DeviceDraft}).
 */
class UsedRuleTest {

    private static final long MIB = 1L << 20;

    private final List<TaggedObservation> obs = new ArrayList<>();
    private final List<EvidenceSet.FileInfo> files = new ArrayList<>();

    private EvidenceSet evidence() {
        return new EvidenceSet(obs, files, Layout.of(1, 1, List.of(0), List.of(), null));
    }

    private static DeviceDraft draftAfterSample(EvidenceSet ev) {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        new LedgerMomentRule().apply(ev, d);
        new SmiSampleRule().apply(ev, d);
        return d;
    }

    @Test
    void usedIsTheReadySampleHbmUsedWithItsLine() {
        // an npu-smi info row "| 0 0 | ... | 3412 / 65536 |" of the ready sample, line 9
        files.add(new EvidenceSet.FileInfo("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY));
        Context chip = Context.device("npu:0/chip:0");
        obs.add(new TaggedObservation(Observation.bytes(Quantity.HBM_USED, 3412 * MIB, 9, "3412").in(chip),
                "ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY, null, null));
        obs.add(new TaggedObservation(Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(chip),
                "ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY, null, null));
        EvidenceSet ev = evidence();
        DeviceDraft d = draftAfterSample(ev);
        new UsedRule().apply(ev, d);

        // 3412 MiB = 3412 x 1048576 B = 3577741312 B, measured, from ready.txt line 9
        assertThat(d.used().bytes()).isEqualTo(3_577_741_312L);
        assertThat(d.used().source().line()).isEqualTo(9);
        assertThat(d.used().note()).startsWith("HBM-Usage, ready sample");
        assertThat(d.capacity().bytes()).isEqualTo(65536L * 1048576L);
        assertThat(d.sampleFile()).isEqualTo("ready.txt");
    }

    @Test
    void rowsPastedWithoutTheirHeaderGiveInferredUsedAndCapacityWithTheLayoutStep() {
        // "| 0 | 0000:C1:00.0 | 0  0 / 0  3369 / 65536 |" pasted without npu-smi's header, line 4
        files.add(new EvidenceSet.FileInfo("issue.md", EvidenceFormat.NPU_SMI_INFO, Moment.READY));
        Context chip = Context.builder().device("npu:0/chip:0").inferred(true).build();
        obs.add(new TaggedObservation(Observation.bytes(Quantity.HBM_USED, 3369 * MIB, 4, "3369").in(chip),
                "issue.md", EvidenceFormat.NPU_SMI_INFO, Moment.READY, null, null));
        obs.add(new TaggedObservation(Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 4, "65536").in(chip),
                "issue.md", EvidenceFormat.NPU_SMI_INFO, Moment.READY, null, null));
        EvidenceSet ev = evidence();
        DeviceDraft d = draftAfterSample(ev);
        new UsedRule().apply(ev, d);

        // 3369 MiB = 3369 x 1048576 B = 3532652544 B, inferred: the column came from npu-smi's layout
        assertThat(d.used().bytes()).isEqualTo(3_532_652_544L);
        assertThat(d.used().confidence()).isEqualTo(io.hbmledger.ledger.Confidence.INFERRED);
        assertThat(d.used().arithmetic()).isEqualTo("\"3369\" read as hbm_used in npu-smi info's layout"
                + " (row pasted without its header): 3369 MiB x 1048576 = 3532652544 B");
        assertThat(d.capacity().confidence()).isEqualTo(io.hbmledger.ledger.Confidence.INFERRED);
        assertThat(d.capacity().bytes()).isEqualTo(68_719_476_736L);
    }

    @Test
    void withoutSampleOrProfileUsedStaysUnknownWithTheSampleRulesReason() {
        files.add(new EvidenceSet.FileInfo("serve.log", EvidenceFormat.VLLM_LOG, Moment.STARTUP));
        EvidenceSet ev = evidence();
        DeviceDraft d = draftAfterSample(ev);
        new UsedRule().apply(ev, d);

        assertThat(d.used().known()).isFalse();
        assertThat(d.used().note()).isEqualTo("no npu-smi / nvidia-smi sample in the run"); // no sample names the accelerator
    }

    @Test
    void aSecondRuleWritingUsedIsRefused() {
        DeviceDraft d = new DeviceDraft(0, List.of(0));
        d.decideUsed(new Amount(1L, null, "first"));
        assertThatThrownBy(() -> d.decideUsed(new Amount(2L, null, "second")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("used is decided once");
    }
}
