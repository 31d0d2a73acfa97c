package io.hbmledger.evidence.safetensors;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Real checkpoint files from the corpus, read in place. */
class SafetensorsCorpusTest {

    @Test
    void peftAdapterHeader() throws Exception {
        Path f = Corpus.file("safetensors/peft-gpt2-lora.adapter_model.safetensors");
        SafetensorsHeader h = SafetensorsHeader.read(f, f.toString());
        // file size 1201208 = 8 + 3120 (u64 at offset 0: bytes 30 0c = 0x0c30) + data
        assertThat(h.headerBytes()).isEqualTo(3120);
        assertThat(h.tensors()).hasSize(25);
        assertThat(h.tensorBytesTotal()).isEqualTo(1201208 - 8 - 3120);
        // score.weight is F32 [6, 768]: 6 x 768 x 4 = 18432, the first data_offsets pair in the header
        assertThat(h.tensors()).filteredOn(t -> t.name().equals("base_model.model.score.weight"))
                .singleElement().satisfies(t -> assertThat(t.bytes()).isEqualTo(18432));
        assertThat(h.warnings()).isEmpty();
    }

    @Test
    void peftHeaderMatchesItsSavedJsonCopy() throws Exception {
        // the corpus keeps the header also as text; the reader's view of the binary must agree with it
        String saved = Files.readString(Corpus.file("safetensors/peft-gpt2-lora.adapter_model.safetensors.header.json"), StandardCharsets.UTF_8);
        Path f = Corpus.file("safetensors/peft-gpt2-lora.adapter_model.safetensors");
        SafetensorsHeader fromText = SafetensorsHeader.parse("header.json", saved.strip().getBytes(StandardCharsets.UTF_8),
                8 + saved.strip().length() + 1198080L);
        assertThat(fromText.tensors()).isEqualTo(SafetensorsHeader.read(f, f.toString()).tensors());
    }

    @Test
    void realHeaderWithAnUnknownDtypeNameKeepsEveryByte(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        // the real header as a non-standard writer would name score.weight's type (issue 11, fault 7)
        String saved = Files.readString(Corpus.file("safetensors/peft-gpt2-lora.adapter_model.safetensors.header.json"),
                StandardCharsets.UTF_8).strip();
        String renamed = saved.replaceFirst("\"dtype\":\"F32\",\"shape\":\\[6,768\\]", "\"dtype\":\"F32_CUSTOM\",\"shape\":[6,768]");
        assertThat(renamed).isNotEqualTo(saved);
        Path f = Files.write(dir.resolve("renamed.safetensors"), SafetensorsWriter.file(renamed, 1198080L));
        SafetensorsHeader h = SafetensorsHeader.read(f, "renamed.safetensors");
        // 25 tensors, 1198080 bytes of data as in the original; score.weight's 18432 bytes from its offsets
        assertThat(h.tensors()).hasSize(25);
        assertThat(h.tensorBytesTotal()).isEqualTo(1198080L);
        assertThat(h.warnings()).singleElement().asString()
                .startsWith("dtype \"F32_CUSTOM\" is not one this reader knows (1 tensor, \"base_model.model.score.weight\"):"
                        + " their 18432 bytes are exact");
    }

    @Test
    void mixtralLfsPointersSumToTheRepositorySize() throws Exception {
        Path f = Corpus.file("safetensors/wizardlm-2-8x22b.git-lfs-pointers.txt");
        EvidenceFile ef = EvidenceReaders.all().read(f, f.toString());
        assertThat(ef.format()).isEqualTo(EvidenceFormat.LFS_POINTER);
        assertThat(ef.observations()).hasSize(59);
        // sum stated in truth.json's note for this file
        assertThat(ef.observations().stream().mapToLong(Observation::bytes).sum()).isEqualTo(281241493344L);
        // first pointer: "size 4998663696" on line 4 (after "==> name <==", version, oid)
        assertThat(ef.observations().get(0).line()).isEqualTo(4);
        assertThat(ef.observations().get(0).text()).isEqualTo("4998663696");
        assertThat(ef.warnings()).singleElement().asString().contains("cloned without Git LFS").contains("59 Git LFS pointers");
    }

    @Test
    void mixtralShardHeadersAreTheLfsSumMinusIndexTotal() throws Exception {
        // LFS objects are whole files (8 + header + data); the index total_size counts data only.
        // 281241493344 - 281241268224 = 225120 bytes = 59 x 8 length prefixes + 224648 bytes of JSON headers.
        long lfs = LfsPointers.parse(Files.readString(Corpus.file("safetensors/wizardlm-2-8x22b.git-lfs-pointers.txt")))
                .stream().mapToLong(LfsPointers.Pointer::size).sum();
        SafetensorsIndex idx = SafetensorsIndex.parse("idx", Files.readString(
                Corpus.file("safetensors/wizardlm-2-8x22b_mixtral.model.safetensors.index.json")));
        assertThat(lfs - idx.totalSize()).isEqualTo(225120L);
        assertThat(idx.shards()).hasSize(59);
    }

    @Test
    void llamaIndex() throws Exception {
        Path f = Corpus.file("safetensors/reflection-llama-3.1-70b.model.safetensors.index.json");
        EvidenceFile ef = EvidenceReaders.all().read(f, f.toString());
        assertThat(ef.format()).isEqualTo(EvidenceFormat.SAFETENSORS_INDEX);
        Observation total = ef.observations().get(0);
        assertThat(total.quantity()).isEqualTo(Quantity.TOTAL_SIZE);
        // "total_size": 282215219200 on line 3 of the file
        assertThat(total.bytes()).isEqualTo(282215219200L);
        assertThat(total.line()).isEqualTo(3);
    }

    @Test
    void singleAdapterPointer() throws Exception {
        Path f = Corpus.file("safetensors/qwen3-14b-lora.adapter_model.safetensors.git-lfs-pointer.txt");
        EvidenceFile ef = EvidenceReaders.all().read(f, f.toString());
        assertThat(ef.observations()).singleElement().satisfies(o -> {
            assertThat(o.bytes()).isEqualTo(513877864L);
            assertThat(o.line()).isEqualTo(3);
        });
        assertThat(ef.warnings()).singleElement().asString().contains("a Git LFS pointer (513877864 bytes)");
    }

    @Test
    void savedHeaderJsonIsReadWithoutItsFile() throws Exception {
        Path f = Corpus.file("safetensors/peft-gpt2-lora.adapter_model.safetensors.header.json");
        EvidenceFile ef = EvidenceReaders.all().read(f, f.toString());
        assertThat(ef.format()).isEqualTo(EvidenceFormat.SAFETENSORS);
        // the same 25 tensors and 1,198,080 bytes as the binary it was dumped from; no header_bytes
        assertThat(ef.observations()).extracting(x -> x.quantity().contractName()).containsExactly("tensor_bytes_total", "tensor_count");
        assertThat(ef.observations().get(0).bytes()).isEqualTo(1_198_080L);
        assertThat(ef.observations().get(1).value()).isEqualTo(25.0);
        assertThat(ef.warnings()).anyMatch(w -> w.contains("saved as JSON"));
    }

    @Test
    void peftAdapterConfigIsNamedNotSized() throws Exception {
        Path f = Corpus.file("safetensors/peft-gpt2-lora.adapter_config.json");
        EvidenceFile ef = EvidenceReaders.all().read(f, f.toString());
        assertThat(ef.format()).isEqualTo(EvidenceFormat.UNKNOWN);
        assertThat(ef.observations()).isEmpty();
        assertThat(ef.warnings()).singleElement().asString().contains("a PEFT adapter_config.json");
    }
}
