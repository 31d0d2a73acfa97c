package io.hbmledger.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The msprof CSV files of one listing are read together, on one pool, the largest first
 * (issue 17): the listing still keeps the order given, each file's result is what it gives read
 * alone, and a file that cannot be read is named without stopping the others.
 */
class EvidenceListingTogetherTest {

    @TempDir
    Path tmp;

    @Test
    void filesReadTogetherKeepTheirOrderAndTheirOwnResults() throws Exception {
        Path small = Corpus.file("msprof/msinsight_server_rank0_npu_module_mem_crlf.csv");
        Path large = Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv");
        Path empty = Files.writeString(tmp.resolve("npu_module_mem_0.csv"), "Component,Timestamp(us),Total Reserved(MB),Device\n");
        Path smi = Corpus.file("npu-smi/vllm-ascend-264_910B2C_16npu_with_processes.txt");
        assertThat(Files.size(large)).isGreaterThan(Files.size(small));

        EvidenceListing together = EvidenceListing.read(List.of(small, smi, empty, large));

        assertThat(together.files()).extracting(EvidenceFile::path)
                .containsExactly(small.toString(), smi.toString(), empty.toString(), large.toString());
        assertThat(together.files().get(0)).isEqualTo(alone(small));
        assertThat(together.files().get(1)).isEqualTo(alone(smi));
        // the listing hands the reader the head it read to pick out the msprof CSVs: the same result
        // as the reader reading the file on its own
        assertThat(together.files().get(1)).isEqualTo(EvidenceReaders.all().read(smi, smi.toString()));
        assertThat(together.files().get(3)).isEqualTo(alone(large));
        // 77 observations in the large one: truth.json notes 77 components, one peak each
        assertThat(together.files().get(3).observations()).hasSize(77);
        assertThat(together.files().get(2).usable()).isFalse();
        assertThat(together.problems()).singleElement().asString()
                .startsWith(empty + ":1: the file has the npu_module_mem header and no rows after it");
    }

    private static EvidenceFile alone(Path file) {
        EvidenceListing one = EvidenceListing.read(List.of(file));
        assertThat(one.files()).hasSize(1);
        return one.files().get(0);
    }
}
