package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.testing.Corpus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Values read by hand from the real exports in ../shared/corpus/msprof (with awk over the CSV
 * rows and sqlite3 over the .db opened with immutable=1; the commands are in each comment).
 */
class MsprofReaderCorpusTest {

    private static EvidenceFile read(String name) throws Exception {
        Path p = Corpus.file("msprof/" + name);
        return EvidenceReaders.all().read(p, name);
    }

    private static Observation one(EvidenceFile f, String quantity, String component) {
        List<Observation> hits = f.observations().stream()
                .filter(o -> o.quantity().contractName().equals(quantity) && java.util.Objects.equals(o.context().component(), component))
                .toList();
        assertThat(hits).as(quantity + " " + component).hasSize(1);
        return hits.get(0);
    }

    @Test
    void npuModuleMemHcclPeakWithRowAndTime() throws Exception {
        EvidenceFile f = read("msinsight_level1_rank0_npu_module_mem.csv");
        assertThat(f.format()).isEqualTo(EvidenceFormat.MSPROF_CSV);
        // awk -F, 'NR>1 && $1=="HCCL"' : data rows 43..56, all 404.0625 (MB header) -> first max is row 43,
        // 404.0625 * 1048576 = 423690240 B, timestamp 1736408883657086.220 us
        Observation hccl = one(f, "module_reserved_peak", "HCCL");
        assertThat(hccl.bytes()).isEqualTo(423_690_240L);
        assertThat(hccl.line()).isEqualTo(43);
        assertThat(hccl.text()).isEqualTo("404.0625");
        assertThat(hccl.context().device()).isEqualTo("npu:0");
        assertThat(hccl.context().samples()).isEqualTo(14L);
        assertThat(hccl.context().timestampUs()).isEqualTo(1_736_408_883_657_086L);
        // RUNTIME rows 99..112: 92.1875 .. 92.234375 first reached at row 104 (1736408883757000.190 us)
        Observation runtime = one(f, "module_reserved_peak", "RUNTIME");
        assertThat(runtime.bytes()).isEqualTo(96_714_752L); // 92.234375 * 2^20
        assertThat(runtime.line()).isEqualTo(104);
        assertThat(runtime.context().timestampUs()).isEqualTo(1_736_408_883_757_000L);
        // 77 components (cut -d, -f1 | uniq | wc -l minus the header), zeros included
        assertThat(f.observations()).hasSize(77);
        assertThat(f.warnings()).isEmpty();
    }

    @Test
    void crlfFileWithNumericComponent() throws Exception {
        EvidenceFile f = read("msinsight_server_rank0_npu_module_mem_crlf.csv");
        // APP rows 48..56 are all 25750.0 MB: first max row 48; 25750 * 2^20 = 27000832000 B
        Observation app = one(f, "module_reserved_peak", "APP");
        assertThat(app.bytes()).isEqualTo(27_000_832_000L);
        assertThat(app.line()).isEqualTo(48);
        assertThat(app.text()).isEqualTo("25750.0");
        // the component written as "76" (no name in this CANN version) stays as written
        assertThat(one(f, "module_reserved_peak", "76").bytes()).isZero();
        assertThat(f.warnings()).isEmpty();
    }

    @Test
    void memoryRecordEmptyCellsAreAbsent() throws Exception {
        EvidenceFile f = read("msinsight_server_rank0_memory_record_5col.csv");
        // row 1: APP,1695115378653323.5,,11224.375,NPU:0 -> reserved 11224.375 MiB, no allocated
        assertThat(one(f, "reserved_peak", "APP").bytes()).isEqualTo(11_769_610_240L);
        assertThat(f.observations()).noneMatch(o -> o.quantity() == Quantity.ALLOCATED_PEAK
                && "APP".equals(o.context().component()));
        // the 5-column layout has no Total Active column at all
        assertThat(f.observations()).noneMatch(o -> o.quantity() == Quantity.ACTIVE_PEAK);
        // row 3: PTA allocated 4599.74072265625 MB = 4823308800 B
        assertThat(one(f, "allocated_peak", "PTA").bytes()).isEqualTo(4_823_308_800L);
    }

    @Test
    void operatorMemorySums() throws Exception {
        EvidenceFile f = read("msinsight_level1_rank0_operator_memory.csv");
        // awk -F, 'NR>1{s+=$2; if($4=="")u+=$2} END{print NR-1,s,u}' -> 184 rows, 1460243.5 KB, 258711.0 KB
        assertThat(one(f, "operator_bytes_total", null).bytes()).isEqualTo(1_495_289_344L);
        assertThat(one(f, "operator_bytes_unreleased", null).bytes()).isEqualTo(264_920_064L);
        assertThat(one(f, "operator_count", null).value()).isEqualTo(184.0);
    }

    @Test
    void staticOpMemTotalRowsOnHostHaveNoDevice() throws Exception {
        EvidenceFile f = read("msinsight_server_rank1_static_op_mem.csv");
        // grep -n TOTAL: line 29 (data row 28) graph 0 17210.5 KB; line 57 (row 56) graph 1 19910.5 KB
        Observation g0 = one(f, "static_graph_total", "0");
        assertThat(g0.bytes()).isEqualTo(17_623_552L);
        assertThat(g0.line()).isEqualTo(28);
        assertThat(g0.context().device()).isNull();
        assertThat(one(f, "static_graph_total", "1").bytes()).isEqualTo(20_388_352L);
    }

    @Test
    void torchNpuSqliteBesideReadOnlyWalIsReadInPlace() throws Exception {
        EvidenceFile f = read("msinsight_level1_rank0_ascend_pytorch_profiler_0.db");
        assertThat(f.format()).isEqualTo(EvidenceFormat.MSPROF_DB);
        // sqlite3 'select rowid,hbm,timestampNs from NPU_MEM where type=363 order by hbm desc, rowid limit 1'
        // -> 9|2216402944|1736410576446211200 (STRING_IDS 363 = app)
        Observation app = one(f, "app_hbm_peak", null);
        assertThat(app.bytes()).isEqualTo(2_216_402_944L);
        assertThat(app.line()).isEqualTo(9);
        assertThat(app.context().timestampUs()).isEqualTo(1_736_410_576_446_211L);
        assertThat(app.context().samples()).isEqualTo(14L);
        // ENUM_MODULE HCCL: max totalReserved 423690240 first at rowid 4
        Observation hccl = one(f, "module_reserved_peak", "HCCL");
        assertThat(hccl.bytes()).isEqualTo(423_690_240L);
        assertThat(hccl.line()).isEqualTo(4);
        // OP_MEMORY: count 184, sum(size) 1495289344, sum(size where releaseTime is null) 264920064
        assertThat(one(f, "operator_bytes_unreleased", null).bytes()).isEqualTo(264_920_064L);
        // sqlite3 'select count(*), max(totalActive) from MEMORY_RECORD where component=536870912' (GE)
        // -> 114|0, where memory_record.csv leaves GE's Total Active empty: not reported as a measured 0
        assertThat(f.observations()).noneMatch(o -> o.quantity() == Quantity.ACTIVE_PEAK && "GE".equals(o.context().component()));
        assertThat(f.warnings()).contains(
                "MEMORY_RECORD: active_peak of GE is 0 in all 114 rows; taken as not recorded, not reported");
        // sqlite3 'select count(*) from NPU_OP_MEM' -> 114: present, not read, and said so
        assertThat(f.warnings()).anyMatch(w -> w.startsWith("table NPU_OP_MEM (114 rows") && w.contains("present and not read"));
    }

    @Test
    void msprofDbWithoutMemoryTablesGivesNoObservations() throws Exception {
        EvidenceFile f = read("msinsight_full_db_msprof_0.db");
        assertThat(f.format()).isEqualTo(EvidenceFormat.MSPROF_DB);
        assertThat(f.observations()).isEmpty();
        assertThat(f.warnings()).anyMatch(w -> w.contains("no memory table"));
        // its one memory-like table, NPU_OP_MEM (sqlite3 count: 494 rows), is named as not read
        assertThat(f.warnings()).anyMatch(w -> w.startsWith("table NPU_OP_MEM (494 rows") && w.contains("present and not read"));
    }
}
