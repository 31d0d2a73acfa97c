package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteSidecarTest {

    private static final String DB = "msinsight_level1_rank0_ascend_pytorch_profiler_0.db";

    @Test
    void theCorpusWalIndexIsASidecarOfItsDatabase() throws Exception {
        // the corpus -shm starts with 18 e2 2d 00: the wal-index version 3007000, little-endian
        EvidenceFile f = EvidenceReaders.all().read(Corpus.file("msprof/" + DB + "-shm"), DB + "-shm");
        assertThat(f.format()).isEqualTo(EvidenceFormat.SQLITE_SIDECAR);
        assertThat(f.observations()).isEmpty();
        assertThat(f.warnings()).singleElement().asString().contains("wal-index").contains("pass " + DB);
    }

    @Test
    void theCorpusEmptyWalIsASidecarNotAnEmptyFile() throws Exception {
        EvidenceFile f = EvidenceReaders.all().read(Corpus.file("msprof/" + DB + "-wal"), DB + "-wal");
        assertThat(f.format()).isEqualTo(EvidenceFormat.SQLITE_SIDECAR);
        assertThat(f.warnings()).singleElement().asString().contains("write-ahead log of " + DB);
    }

    @Test
    void aRollbackJournalIsRecognisedByItsMagic(@TempDir Path dir) throws Exception {
        Path journal = dir.resolve("msprof_0.db-journal");
        byte[] bytes = new byte[512];
        byte[] magic = {(byte) 0xd9, (byte) 0xd5, 0x05, (byte) 0xf9, 0x20, (byte) 0xa1, 0x63, (byte) 0xd7};
        System.arraycopy(magic, 0, bytes, 0, magic.length);
        Files.write(journal, bytes);
        EvidenceFile f = EvidenceReaders.all().read(journal, journal.toString());
        assertThat(f.format()).isEqualTo(EvidenceFormat.SQLITE_SIDECAR);
        assertThat(f.warnings()).singleElement().asString().contains("rollback journal of msprof_0.db");
    }

    @Test
    void aTextFileNamedLikeASidecarIsReadForWhatItHolds(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("server-wal");
        Files.writeString(log, "INFO 01-20 10:00:00 worker.py:123] Loading model weights took 14.99 GB\n",
                StandardCharsets.UTF_8);
        EvidenceFile f = EvidenceReaders.all().read(log, log.toString());
        assertThat(f.format()).isEqualTo(EvidenceFormat.VLLM_LOG);
    }
}
