package io.hbmledger.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.run.Moment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loading layer called directly on the bundled A3 example (vllm-ascend issue 2667): its
 * npu-smi table line 9 reads {@code | 0     0 | 0000:9D:00.0 | 0  0 / 0  3412 / 65536 |} (chip 0
 * of NPU 0, HBM 3412 of 65536 MB), and its start-up log line 47 {@code Available memory:
 * 34184553369, total memory: 65464696832}.
 */
class EvidenceLoaderTest {

    private static final Path EXAMPLE = Path.of("examples", "a3-llama3.1-8b-eagle3");
    private static final long MIB = 1L << 20;

    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    private LoadedRun load(LoadRequest req) throws Exception {
        return new EvidenceLoader(warnings::add).load(req);
    }

    private static List<TaggedObservation> at(EvidenceSet ev, String file, int line) {
        return ev.where(t -> t.file().equals(file) && t.o().line() == line);
    }

    @Test
    void aRunDirectoryGivesEachFileItsMomentFormatAndRankAsRunJsonSays() throws Exception {
        LoadedRun run = load(LoadRequest.of(EXAMPLE));
        EvidenceSet ev = run.evidence();
        assertThat(run.runDir()).isNotNull();
        assertThat(ev.files()).extracting(EvidenceSet.FileInfo::file, EvidenceSet.FileInfo::moment)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("evidence/npu-smi-idle.txt", Moment.BASELINE),
                        org.assertj.core.groups.Tuple.tuple("evidence/vllm-startup.log", Moment.STARTUP));
        assertThat(ev.files().get(0).format().family()).isEqualTo(io.hbmledger.evidence.EvidenceFormat.Family.NPU_SMI);
        assertThat(ev.files().get(1).format()).isEqualTo(io.hbmledger.evidence.EvidenceFormat.VLLM_LOG);
        // HBM 3412 / 65536 MB of chip 0: used and capacity, in bytes, cited at line 9 as written
        assertThat(at(ev, "evidence/npu-smi-idle.txt", 9)).extracting(t -> t.o().bytes())
                .contains(3412 * MIB, 65536 * MIB);
        // run.json gives the log rank 0; every observation of it carries that rank and the startup moment
        List<TaggedObservation> log = ev.where(t -> t.file().equals("evidence/vllm-startup.log"));
        assertThat(log).isNotEmpty().allSatisfy(t -> {
            assertThat(t.rank()).isEqualTo(0);
            assertThat(t.moment()).isEqualTo(Moment.STARTUP);
        });
        assertThat(at(ev, "evidence/vllm-startup.log", 47)).extracting(t -> t.o().bytes())
                .contains(34_184_553_369L, 65_464_696_832L);
        assertThat(ev.layout().tp()).isEqualTo(1);
        assertThat(ev.layout().devices()).containsExactly(0);
        assertThat(ev.checkpoint()).isNull();
        assertThat(ev.msprof().present()).isFalse();
        assertThat(warnings).isEmpty();
    }

    @Test
    void filesGivenOneByOneTakeTheirMomentAndDeviceFromTheOptions() throws Exception {
        Path smi = EXAMPLE.resolve("evidence/npu-smi-idle.txt");
        FileOptions opts = new FileOptions(1, 1, null, false, null, null, List.of(4), Map.of("npu-smi-idle.txt", "baseline"),
                Map.of(smi.toString(), 4), null, Map.of());
        EvidenceSet ev = load(new LoadRequest(List.of(smi), opts, null, null)).evidence();
        assertThat(ev.files()).singleElement().satisfies(f -> {
            assertThat(f.file()).isEqualTo(smi.toString());
            assertThat(f.moment()).isEqualTo(Moment.BASELINE);
        });
        assertThat(ev.observations()).isNotEmpty().allSatisfy(t -> assertThat(t.device()).isEqualTo(4));
        assertThat(ev.layout().devices()).containsExactly(4);
    }

    @Test
    void aFileNamedTwiceIsRefusedNamingBothPlaces() {
        Path smi = EXAMPLE.resolve("evidence/npu-smi-idle.txt");
        assertThatThrownBy(() -> load(new LoadRequest(List.of(smi, smi.toAbsolutePath()), FileOptions.none(), null, null)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("inputs 1 and 2 name the same file")
                .hasMessageContaining("counted twice");
    }

    @Test
    void aRunWithoutAnyMemoryFigureIsRefusedNamingItsFiles() throws Exception {
        Path log = Files.writeString(tmp.resolve("vllm.log"), "INFO 09-02 03:31:35 [api_server.py:1] vLLM API server version 0.10.1\n");
        assertThatThrownBy(() -> load(LoadRequest.of(log)))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("nothing to attribute")
                .hasMessageContaining(log.toString());
    }

    @Test
    void optionsThatDescribeFilesAreRefusedForARunDirectory() {
        FileOptions tp2 = new FileOptions(2, null, null, false, null, null, null, Map.of(), Map.of(), null, Map.of());
        assertThatThrownBy(() -> load(new LoadRequest(List.of(EXAMPLE), tp2, null, null)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("a run directory takes them from its run.json");
    }

    @Test
    void moreDevicesThanRanksAreRefusedWithTheRanksThatWouldNotExist() {
        Path smi = EXAMPLE.resolve("evidence/npu-smi-idle.txt");
        FileOptions opts = new FileOptions(2, null, null, false, null, null, List.of(0, 1, 2), Map.of(), Map.of(), null, Map.of());
        assertThatThrownBy(() -> load(new LoadRequest(List.of(smi), opts, null, null)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("lists 3 devices but TP 2")
                .hasMessageContaining("[2] would be ranks that do not exist")
                .hasMessageContaining("--devices 0,1)");
    }
}
