package io.hbmledger.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A number that brings in a rate or another source is {@code inferred} and shows its arithmetic
 * (README's confidence table); readings of one sample of one instrument, added up, stay
 * {@code measured} and show their sum.
 */
class DerivedLinesTest {

    private static final long MIB = 1L << 20;

    private final List<TaggedObservation> obs = new ArrayList<>();
    private final List<EvidenceSet.FileInfo> files = new ArrayList<>();

    private void add(String file, Observation o) {
        EvidenceSet.FileInfo f = files.stream().filter(x -> x.file().equals(file)).findFirst().orElseThrow();
        obs.add(new TaggedObservation(o, file, f.format(), f.moment(), null, null));
    }

    private static Entry entry(DeviceLedger d, String component) {
        return d.entries().stream().filter(e -> e.component().equals(component)).findFirst().orElseThrow();
    }

    @Test
    void usedFromAUsageRateIsInferredWithItsArithmetic() {
        // corpus npu-smi/hiascend-doc_atlas200IA2_info_t_usages_i0.txt as the usages reader gives
        // it: line 6 "Memory Capacity(MB) : 10810", line 7 "Memory Usage Rate(%) : 35"
        files.add(new EvidenceSet.FileInfo("usages.txt", EvidenceFormat.NPU_SMI_USAGES, Moment.READY));
        add("usages.txt", Observation.bytes(Quantity.MEMORY_CAPACITY, 10810 * MIB, 6, "10810").in(Context.device("npu:0/chip:0")));
        add("usages.txt", Observation.value(Quantity.MEMORY_USAGE_RATE, 35, 7, "35").in(Context.device("npu:0/chip:0")));
        DeviceLedger d = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(), null))).devices().get(0);
        // 10810 MiB = 11335106560 B; x 35 / 100 = 3967287296 B
        assertThat(d.used().bytes()).isEqualTo(3_967_287_296L);
        assertThat(d.used().confidence()).isEqualTo(Confidence.INFERRED);
        assertThat(d.used().arithmetic()).isEqualTo(
                "capacity 10810 MiB (line 6) x usage rate 35% (line 7) / 100 = 3967287296 B (3.69 GiB)");
        // capacity itself is read as is
        assertThat(d.capacity().confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(d.capacity().arithmetic()).isNull();
    }

    @Test
    void severalProcessRowsOfOneSampleAreMeasuredWithTheirSum() {
        files.add(new EvidenceSet.FileInfo("ready.txt", EvidenceFormat.NPU_SMI_INFO, Moment.READY));
        add("ready.txt", Observation.bytes(Quantity.HBM_USED, 40000 * MIB, 9, "40000").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.HBM_TOTAL, 65536 * MIB, 9, "65536").in(Context.device("npu:0/chip:0")));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 30000 * MIB, 40, "30000").in(Context.builder().device("npu:0/chip:0").pid(100L).processName("python3").build()));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 1000 * MIB, 41, "1000").in(Context.builder().device("npu:0/chip:0").pid(200L).processName("other").build()));
        add("ready.txt", Observation.bytes(Quantity.PROCESS_MEMORY, 500 * MIB, 42, "500").in(Context.builder().device("npu:0/chip:0").pid(300L).processName("monitor").build()));
        DeviceLedger d = Attribution.standard().attribute(new EvidenceSet(obs, files,
                Layout.of(1, 1, List.of(0), List.of(100L), null))).devices().get(0);
        Entry server = entry(d, Component.SERVER_PROCESSES);
        assertThat(server.confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(server.arithmetic()).isNull();
        Entry other = entry(d, Component.OTHER_PROCESSES);
        // 1000 MiB = 1048576000 B, 500 MiB = 524288000 B; sum 1572864000 B = 1.46 GiB
        assertThat(other.bytes()).isEqualTo(1500 * MIB);
        assertThat(other.confidence()).isEqualTo(Confidence.MEASURED);
        assertThat(other.arithmetic()).isEqualTo("pid 200 1048576000 B + pid 300 524288000 B = 1572864000 B (1.46 GiB)");
    }

    @Test
    void anInferredLineWithoutArithmeticCannotBeMade() {
        assertThatThrownBy(() -> new Entry(Component.KV_CACHE, 1L, Confidence.INFERRED, List.of(), "x", null, true, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeviceLedger.Amount(1L, null, "x", Confidence.INFERRED, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
