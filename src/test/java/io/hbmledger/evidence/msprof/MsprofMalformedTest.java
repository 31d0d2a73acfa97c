package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hand-made inputs in the real files' layouts; every expected number is worked out in a comment. */
class MsprofMalformedTest {

    @TempDir
    Path dir;

    private EvidenceFile read(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return EvidenceReaders.all().read(p, name);
    }

    private static Observation only(EvidenceFile f, String quantity, String component) {
        return f.observations().stream()
                .filter(o -> o.quantity().contractName().equals(quantity) && java.util.Objects.equals(o.context().component(), component))
                .findFirst().orElseThrow();
    }

    @Test
    void cutOffLastLineIsAWarningWithItsRowAndTheRestIsRead() throws Exception {
        EvidenceFile f = read("npu_module_mem.csv", "Component,Timestamp(us),Total Reserved(MB),Device\n"
                + "HCCL,1000.000\t,404.0,NPU:0\n"
                + "HCCL,2000.000\t,405.0,NPU:0\n"
                + "HCCL,3000.0");
        // rows 1 and 2 read: max 405 MiB = 424673280 B at row 2; row 3 has 2 of 4 fields
        Observation o = only(f, "module_reserved_peak", "HCCL");
        assertThat(o.bytes()).isEqualTo(405L * 1024 * 1024);
        assertThat(o.line()).isEqualTo(2);
        assertThat(o.context().samples()).isEqualTo(2L);
        assertThat(f.warnings()).containsExactly(
                "row 3: last line is cut off (2 of 4 fields, no line break at the end of the file); row ignored");
    }

    /**
     * MsprofFuzzTest finding (kept as finding-module-peak-beyond-any-device): one APP sample of
     * 4025750.0 MB (3.8 TiB) became the module's peak. Now it is ignored with a row warning and the
     * peak is that of the plausible samples.
     */
    @Test
    void aSampleBeyondAnyDeviceIsIgnoredAndNeverThePeak() throws Exception {
        EvidenceFile f = read("npu_module_mem.csv", "Component,Timestamp(us),Total Reserved(MB),Device\n"
                + "APP,1000.000\t,4025750.0,NPU:0\n"
                + "APP,2000.000\t,2048.0,NPU:0\n");
        // 4025750 MiB = 4221304832000 B > 2^40 = 1099511627776 B; the peak is row 2, 2048 MiB = 2147483648 B
        Observation o = only(f, "module_reserved_peak", "APP");
        assertThat(o.bytes()).isEqualTo(2_147_483_648L);
        assertThat(o.line()).isEqualTo(2);
        assertThat(o.context().samples()).isEqualTo(1L);
        assertThat(f.warnings()).containsExactly(
                "row 1: field 3 '4025750.0' is 4221304832000 bytes, more than any device holds (1 TiB); value ignored");
    }

    @Test
    void unknownColumnsAreNamedAndIgnored() throws Exception {
        EvidenceFile f = read("memory_record.csv",
                "Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Fancy Column,Device Type\r\n"
                        + "PTA,1000.5\t,1024,2048,x,NPU:3\r\n");
        // KB header: 1024 KiB = 1048576 B allocated, 2048 KiB = 2097152 B reserved, device NPU:3
        assertThat(only(f, "allocated_peak", "PTA").bytes()).isEqualTo(1_048_576L);
        assertThat(only(f, "reserved_peak", "PTA").bytes()).isEqualTo(2_097_152L);
        assertThat(only(f, "reserved_peak", "PTA").context().device()).isEqualTo("npu:3");
        assertThat(f.warnings()).containsExactly("line 1 (header): unknown column 'Fancy Column' ignored");
    }

    @Test
    void badNumberNamesTheRowAndField() throws Exception {
        EvidenceFile f = read("npu_mem.csv", "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n"
                + "2,app,0,1000,1000,5.000\t\n"
                + "2,app,0,12x4,12x4,6.000\t\n"
                + "2,device,0,3000,3000,7.000\t\n"
                + "host,device,0,5000,5000,8.000\t\n");
        // row 2's hbm is not a number; app max 1000 KiB = 1024000 B; device npu:2 3000 KiB = 3072000 B;
        // the host row is process-level: a device_hbm_peak without a device
        assertThat(only(f, "app_hbm_peak", null).bytes()).isEqualTo(1_024_000L);
        assertThat(f.observations()).filteredOn(o -> o.quantity() == Quantity.DEVICE_HBM_PEAK)
                .extracting(x -> x.context().device(), Observation::bytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("npu:2", 3_072_000L),
                        org.assertj.core.groups.Tuple.tuple(null, 5_120_000L));
        assertThat(f.warnings()).containsExactly("row 2: field 4 '12x4' is not a number; value ignored");
    }

    @Test
    void minusOneMeansOnlyFreesWereSeenAndIsNotAValue() throws Exception {
        EvidenceFile f = read("npu_module_mem_0.csv", "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                + "0,SLOG,1.0\t,-1,NPU:0\n"
                + "0,SLOG,2.0\t,8,NPU:0\n");
        assertThat(only(f, "module_reserved_peak", "SLOG").bytes()).isEqualTo(8192L);
        assertThat(only(f, "module_reserved_peak", "SLOG").context().samples()).isEqualTo(1L);
        assertThat(f.warnings()).containsExactly("row 1: 1 value of -1 (only frees were seen, per the CANN profiling guide)"
                + " not counted as usage");
    }

    /** -5.0 is not the CANN mark: said as a negative value ignored, not as "only frees were seen". */
    @Test
    void anotherNegativeValueIsNotSaidToMeanOnlyFrees() throws Exception {
        EvidenceFile f = read("npu_module_mem_0.csv", "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                + "0,SLOG,1.0\t,-5.0,NPU:0\n"
                + "0,SLOG,2.0\t,-1.0,NPU:0\n"
                + "0,SLOG,3.0\t,-1,NPU:0\n"
                + "0,SLOG,4.0\t,8,NPU:0\n");
        // 8 KiB, the only value counted
        assertThat(only(f, "module_reserved_peak", "SLOG").bytes()).isEqualTo(8192L);
        assertThat(only(f, "module_reserved_peak", "SLOG").context().samples()).isEqualTo(1L);
        assertThat(f.warnings()).containsExactly(
                "row 1: field 4 '-5.0' is negative: no memory amount is, and it is not the -1 that marks \"only frees were"
                        + " seen\" (CANN profiling guide); value ignored",
                "row 2: 2 values of -1 (only frees were seen, per the CANN profiling guide) not counted as usage");
    }

    @Test
    void headerWithoutUnitIsNeverGuessed() throws Exception {
        EvidenceFile f = read("npu_module_mem.csv", "Component,Timestamp(us),Total Reserved,Device\n"
                + "HCCL,1.0,404.0,NPU:0\n");
        assertThat(f.observations()).isEmpty();
        assertThat(f.warnings()).anyMatch(w -> w.startsWith("line 1 (header): no unit"));
    }

    @Test
    void corruptDatabaseIsAClearErrorNamingTheFile() throws Exception {
        Path p = dir.resolve("msprof_0.db");
        byte[] junk = new byte[8192];
        System.arraycopy("SQLite format 3\0".getBytes(StandardCharsets.ISO_8859_1), 0, junk, 0, 16);
        for (int i = 16; i < junk.length; i++) {
            junk[i] = (byte) (i * 31);
        }
        Files.write(p, junk);
        assertThatThrownBy(() -> EvidenceReaders.all().read(p, "msprof_0.db"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageStartingWith("msprof_0.db: cannot read as an msprof SQLite export");
    }

    @Test
    void quotedCellsWithCommasAreOneCell() throws Exception {
        EvidenceFile f = read("operator_memory.csv", "Name,Size(KB),Allocation Time(us),Release Time(us),Device Type\n"
                + "\"aten::cat, fused\",2,1.0\t,,NPU:1\n"
                + "aten::add,3,2.0\t,3.0\t,NPU:1\n");
        // 2 + 3 = 5 KiB = 5120 B total; 2 KiB = 2048 B unreleased (row 1 has no release time)
        assertThat(only(f, "operator_bytes_total", null).bytes()).isEqualTo(5120L);
        assertThat(only(f, "operator_bytes_unreleased", null).bytes()).isEqualTo(2048L);
        assertThat(only(f, "operator_count", null).context().device()).isEqualTo("npu:1");
    }

    /** issue 14: Size(KB) and Allocation Time(us) swapped gave an operator total of 1.7e18 bytes, quietly. */
    @Test
    void anOperatorSizeBeyondAnyDeviceIsIgnoredWithAWarning() throws Exception {
        EvidenceFile f = read("operator_memory.csv", "Name,Allocation Time(us),Size(KB),Release Time(us),Device Type\n"
                + "aten::empty_strided,18816.5,1736408883694624.810\t,,NPU:0\n"
                + "aten::add,1.0\t,4,2.0\t,NPU:0\n");
        // only row 2 counts: 4 KiB = 4096 B; row 1's 1736408883694624.810 KB is about 1.78e18 B > 1 TiB
        assertThat(only(f, "operator_bytes_total", null).bytes()).isEqualTo(4096L);
        assertThat(f.warnings()).singleElement().asString().startsWith("row 1: size 1736408883694624.810")
                .contains("more than any device holds (1 TiB); are two columns swapped? row ignored");
    }
}
