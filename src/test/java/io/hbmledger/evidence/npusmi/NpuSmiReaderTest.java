package io.hbmledger.evidence.npusmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Detection by content, and the file adapter. */
class NpuSmiReaderTest {

    private final NpuSmiReader reader = new NpuSmiReader();

    private static FileHead head(String name, byte[] bytes) {
        return new FileHead(name, bytes, bytes.length);
    }

    private static FileHead head(String name, String text) {
        return head(name, text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void detectsEveryCorpusNpuSmiFileByContent() throws IOException {
        try (Stream<Path> files = Files.list(Corpus.file("truth.json").resolveSibling("npu-smi"))) {
            for (Path f : files.toList()) {
                byte[] bytes = Files.readAllBytes(f);
                EvidenceFormat expected = f.getFileName().toString().contains("usages") ? EvidenceFormat.NPU_SMI_USAGES : EvidenceFormat.NPU_SMI_INFO;
                // a neutral name: detection must not depend on it
                assertThat(reader.detect(head("x.txt", bytes))).as(f.toString()).contains(expected);
            }
        }
    }

    @Test
    void leavesVllmLogsAndMsprofCsvAlone() throws IOException {
        Path corpus = Corpus.file("truth.json").getParent();
        for (String dir : new String[] {"vllm-log", "msprof", "nvidia-smi"}) {
            try (Stream<Path> files = Files.list(corpus.resolve(dir))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    byte[] bytes = Files.readAllBytes(f);
                    byte[] h = java.util.Arrays.copyOf(bytes, Math.min(bytes.length, FileHead.HEAD_BYTES));
                    assertThat(reader.detect(new FileHead("x", h, bytes.length))).as(f.toString()).isEmpty();
                }
            }
        }
    }

    @Test
    void aLogThatMentionsNpuSmiOrQuotesATableIsNotNpuSmi() {
        String log = String.join("\n",
                "INFO 06-23 13:44:18 [worker.py:100] run `npu-smi info` to check HBM-Usage(MB) of each NPU",
                "INFO 06-23 13:44:18 [worker.py:101] NPU ID : 0",
                "INFO 06-23 13:44:18 [worker.py:102] HBM Capacity(MB) : 65536",
                "(VllmWorkerProcess pid=521) INFO 06-23 13:44:19 [worker.py:267] | NPU   Name | Health |",
                "(VllmWorkerProcess pid=521) INFO 06-23 13:44:19 [worker.py:267] Memory profiling takes 17.59 seconds",
                "INFO 06-23 13:44:20 [worker.py:267] model weights take 21.21GiB");
        assertThat(reader.detect(head("npu-smi.txt", log))).isEmpty();
        // a table quoted inside a longer log stays with the log reader
        String quoted = log + "\n" + NpuSmiInfoParserTest.A2_HEADER.lines().limit(4).reduce("", (a, b) -> a + b + "\n")
                + log + "\n" + log;
        assertThat(reader.detect(head("x", quoted))).isEmpty();
    }

    @Test
    void readsUtf16FromPowerShellRedirection(@TempDir Path dir) throws Exception {
        String text = NpuSmiInfoParserTest.A2_HEADER + "\r\n"
                + "| 0     910B3               | OK            | 93.2        49                0    / 0             |\r\n"
                + "| 0                         | 0000:01:00.0  | 0           0    / 0          3000 / 65536         |\r\n";
        byte[] body = text.getBytes(StandardCharsets.UTF_16LE);
        byte[] bytes = new byte[body.length + 2];
        bytes[0] = (byte) 0xff;
        bytes[1] = (byte) 0xfe;
        System.arraycopy(body, 0, bytes, 2, body.length);
        Path f = dir.resolve("smi.txt");
        Files.write(f, bytes);
        EvidenceFile e = EvidenceReaders.all().read(f, "smi.txt");
        assertThat(e.format()).isEqualTo(EvidenceFormat.NPU_SMI_INFO);
        // 3000 MiB = 3,145,728,000 bytes on line 8
        assertThat(e.observations()).anySatisfy(o -> {
            assertThat(o.quantity()).isEqualTo(Quantity.HBM_USED);
            assertThat(o.bytes()).isEqualTo(3_145_728_000L);
            assertThat(o.line()).isEqualTo(8);
        });
    }
}
