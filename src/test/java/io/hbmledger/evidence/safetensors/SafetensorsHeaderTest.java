package io.hbmledger.evidence.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetensorsHeaderTest {

    @TempDir
    Path dir;

    /**
     * Bytes of 8 elements (shape [2, 4]) of every dtype huggingface/safetensors defines, worked
     * out by hand from each type's width: 1-byte types 8, 2-byte 16, 4-byte 32, 8-byte 64 (C64
     * is two 32-bit floats), F4 is 4 bits (8 x 4 / 8 = 4), F6 6 bits (8 x 6 / 8 = 6).
     */
    private static final Map<String, Long> EIGHT_ELEMENTS = new LinkedHashMap<>();

    static {
        for (String d : new String[] {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ"}) {
            EIGHT_ELEMENTS.put(d, 8L);
        }
        for (String d : new String[] {"I16", "U16", "F16", "BF16"}) {
            EIGHT_ELEMENTS.put(d, 16L);
        }
        for (String d : new String[] {"I32", "U32", "F32"}) {
            EIGHT_ELEMENTS.put(d, 32L);
        }
        for (String d : new String[] {"I64", "U64", "F64", "C64"}) {
            EIGHT_ELEMENTS.put(d, 64L);
        }
        EIGHT_ELEMENTS.put("F4", 4L);
        EIGHT_ELEMENTS.put("F6_E2M3", 6L);
        EIGHT_ELEMENTS.put("F6_E3M2", 6L);
    }

    private Path write(String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    @Test
    void everyDtypeHasItsSize() throws Exception {
        assertThat(EIGHT_ELEMENTS).hasSize(SafetensorsDtype.values().length);
        SafetensorsWriter w = new SafetensorsWriter().metadata("{\"format\":\"pt\"}");
        EIGHT_ELEMENTS.forEach((d, bytes) -> w.add("t." + d, d, bytes, 2, 4));
        Path f = write("all.safetensors", w.build());

        SafetensorsHeader h = SafetensorsHeader.read(f, "all.safetensors");

        assertThat(h.tensors()).hasSize(EIGHT_ELEMENTS.size());
        for (SafetensorsTensor t : h.tensors()) {
            assertThat(t.bytes()).as(t.name()).isEqualTo(EIGHT_ELEMENTS.get(t.dtype().name()));
        }
        // 8 x 8 + 4 x 16 + 3 x 32 + 4 x 64 + 4 + 6 + 6 = 64 + 64 + 96 + 256 + 16 = 496
        assertThat(h.tensorBytesTotal()).isEqualTo(496);
        assertThat(h.metadata()).containsEntry("format", "pt");
        assertThat(h.warnings()).isEmpty();
        assertThat(h.headerBytes() % 8).isZero();
        assertThat(h.fileSize()).isEqualTo(8 + h.headerBytes() + 496);
    }

    @Test
    void readerReportsContractQuantities() throws Exception {
        // BF16 [3, 5] = 30 bytes, F32 [7] = 28 bytes
        SafetensorsWriter w = new SafetensorsWriter().add("a", "BF16", 30, 3, 5).add("b", "F32", 28, 7);
        Path f = write("small.safetensors", w.build());
        long n = w.headerJson().length();
        long padded = (n + 7) / 8 * 8;

        EvidenceFile ef = EvidenceReaders.all().read(f, "small.safetensors");

        assertThat(ef.format()).isEqualTo(EvidenceFormat.SAFETENSORS);
        assertThat(ef.observations()).extracting(x -> x.quantity().contractName())
                .containsExactly("tensor_bytes_total", "tensor_count", "header_bytes");
        assertThat(ef.observations().get(0).bytes()).isEqualTo(58);
        assertThat(ef.observations().get(1).value()).isEqualTo(2.0);
        assertThat(ef.observations().get(2).bytes()).isEqualTo(padded);
    }

    @Test
    void detectsSafetensorsByContentWhateverTheName() throws Exception {
        Path f = write("weights.bin", new SafetensorsWriter().add("a", "U8", 4, 4).build());
        assertThat(EvidenceReaders.all().read(f, "weights.bin").format()).isEqualTo(EvidenceFormat.SAFETENSORS);
    }

    @Test
    void headerLengthBeyondTheFile() throws Exception {
        byte[] header = "{}".getBytes(StandardCharsets.UTF_8);
        Path f = write("short.safetensors", SafetensorsWriter.raw(4096, header, 0));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "short.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageStartingWith("short.safetensors: ")
                .hasMessageContaining("declared header length 4096 bytes runs past the end of the file (file size 10 bytes");
    }

    @Test
    void hugeDeclaredHeaderIsRefusedWithoutAllocating() throws Exception {
        // 2^40 bytes declared in a 10-byte file: over the 100,000,000-byte cap, refused before any read
        Path f = write("huge.safetensors", SafetensorsWriter.raw(1L << 40, "{}".getBytes(StandardCharsets.UTF_8), 0));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "huge.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("huge.safetensors")
                .hasMessageContaining("declared header length 1099511627776 bytes exceeds the 100000000-byte limit");
        // just over the cap, in a file that is that long would be valid otherwise: still refused
        assertThatThrownBy(() -> SafetensorsHeader.declaredLength(SafetensorsWriter.raw(100_000_001L, new byte[0], 0),
                200_000_000L, "x")).hasMessageContaining("exceeds the 100000000-byte limit");
        // an unsigned length with the top bit set reads as a huge unsigned number, not a negative one
        assertThatThrownBy(() -> SafetensorsHeader.declaredLength(SafetensorsWriter.raw(-1L, new byte[0], 0), 100, "x"))
                .hasMessageContaining("18446744073709551615 bytes exceeds");
    }

    @Test
    void headerNotJson() throws Exception {
        Path f = write("garbage.safetensors", SafetensorsWriter.file("{\"a\": [1, 2", 0));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "garbage.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageStartingWith("garbage.safetensors: ")
                .hasMessageContaining("header is not JSON");
    }

    @Test
    void headerNotUtf8() throws Exception {
        byte[] bad = {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
        Path f = write("latin.safetensors", SafetensorsWriter.raw(bad.length, bad, 0));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "latin.safetensors")).hasMessageContaining("not UTF-8");
    }

    @Test
    void headerNotAnObject() throws Exception {
        Path f = write("array.safetensors", SafetensorsWriter.file("[1, 2, 3]", 0));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "array.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("array.safetensors")
                .hasMessageContaining("the header is JSON but not an object")
                .hasMessageContaining("found an array");
    }

    @Test
    void overlappingOffsets() throws Exception {
        String h = "{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]}}";
        Path f = write("overlap.safetensors", SafetensorsWriter.file(h, 12));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "overlap.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("overlap.safetensors")
                .hasMessageContaining("tensors \"a\" [0, 8) and \"b\" [4, 12) overlap");
    }

    @Test
    void offsetsPastTheData() throws Exception {
        String h = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}";
        Path f = write("truncated.safetensors", SafetensorsWriter.file(h, 10));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "truncated.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("truncated.safetensors")
                .hasMessageContaining("tensor \"a\": data_offsets end 16 is past the data section (10 bytes after the header)");
    }

    @Test
    void offsetsThatDisagreeWithDtypeAndShapeAreAWarningAndTheOffsetsCount() throws Exception {
        String h = "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,4]}}";
        Path f = write("mismatch.safetensors", SafetensorsWriter.file(h, 4));
        SafetensorsHeader header = SafetensorsHeader.read(f, "mismatch.safetensors");
        // BF16 [4] would be 4 x 2 = 8 bytes; the offsets hold 4, and the offsets are what the file holds
        assertThat(header.tensorBytesTotal()).isEqualTo(4);
        assertThat(header.warnings()).containsExactly("tensor \"a\": data_offsets [0, 4] hold 4 bytes but BF16 x shape [4]"
                + " needs 8 bytes; its bytes are taken from data_offsets (what the file holds)");
    }

    @Test
    void subByteTensorThatDoesNotFillWholeBytesIsAWarning() throws Exception {
        String h = "{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}";
        Path f = write("f4.safetensors", SafetensorsWriter.file(h, 2));
        SafetensorsHeader header = SafetensorsHeader.read(f, "f4.safetensors");
        assertThat(header.tensorBytesTotal()).isEqualTo(2);
        assertThat(header.warnings()).singleElement().asString().contains("12 bits, not a whole number of bytes");
    }

    /**
     * Issue 11, fault 7: a dtype name from a newer or non-standard writer ({@code F8_E4M3FN}
     * for the standard {@code F8_E4M3}) no longer fails the checkpoint: its bytes are exact from
     * the offsets, its type is said unknown, the other tensors are read as before.
     */
    @Test
    void unknownDtypeKeepsExactBytesAndTheRestOfTheFile() throws Exception {
        String h = "{\"w1\":{\"dtype\":\"F8_E4M3FN\",\"shape\":[4,8],\"data_offsets\":[0,32]},"
                + "\"w2\":{\"dtype\":\"F8_E4M3FN\",\"shape\":[2,8],\"data_offsets\":[32,48]},"
                + "\"s\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[48,64]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[8],\"data_offsets\":[64,72]}}";
        Path f = write("fp8.safetensors", SafetensorsWriter.file(h, 72));
        EvidenceFile e = EvidenceReaders.all().read(f, "fp8.safetensors");
        // 32 + 16 bytes of F8_E4M3FN (offsets), 16 of F32 [4] (4 x 4), 8 at offsets 64..72 for BF16 [8] (needs 16)
        Observation total = e.observations().stream().filter(o -> o.quantity() == Quantity.TENSOR_BYTES_TOTAL).findFirst().orElseThrow();
        assertThat(total.bytes()).isEqualTo(72);
        assertThat(e.observations()).filteredOn(o -> o.quantity() == Quantity.TENSOR_COUNT)
                .singleElement().extracting(Observation::value).isEqualTo(4.0);
        assertThat(e.warnings()).containsExactly(
                "dtype \"F8_E4M3FN\" is not one this reader knows (2 tensors, the first \"w1\"): their 48 bytes are exact"
                        + " from data_offsets, their element type is unknown; known: " + SafetensorsDtype.names(),
                "tensor \"b\": data_offsets [64, 72] hold 8 bytes but BF16 x shape [8] needs 16 bytes; its bytes are"
                        + " taken from data_offsets (what the file holds)");
        SafetensorsHeader header = SafetensorsHeader.read(f, "fp8.safetensors");
        assertThat(header.tensors().get(0).dtype()).isNull();
        assertThat(header.tensors().get(0).dtypeName()).isEqualTo("F8_E4M3FN");
    }

    @Test
    void shorterThanTheLengthPrefix() throws Exception {
        Path f = write("tiny.safetensors", new byte[] {1, 2, 3});
        assertThatThrownBy(() -> EvidenceReaders.all().read(f, "tiny.safetensors"))
                .isInstanceOf(EvidenceException.class)
                .hasMessageContaining("found only 3 bytes");
    }

    @Test
    void gapsAndTrailingBytesAreWarningsNotErrors() throws Exception {
        String h = "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[8,12]}}";
        Path f = write("gaps.safetensors", SafetensorsWriter.file(h, 20));
        SafetensorsHeader hd = SafetensorsHeader.read(f, "gaps.safetensors");
        assertThat(hd.tensorBytesTotal()).isEqualTo(8);
        assertThat(hd.warnings()).containsExactly("4 bytes of the data section lie between tensors and belong to none",
                "8 bytes after the last tensor (data section 20 bytes, tensors end at 12) belong to no tensor");
    }

    @Test
    void zeroLengthHeader() throws Exception {
        Path f = write("zero.safetensors", SafetensorsWriter.raw(0, new byte[] {'{'}, 0));
        assertThatThrownBy(() -> SafetensorsHeader.read(f, "zero.safetensors")).hasMessageContaining("declared header length is 0 bytes");
    }

    @Test
    void detachedHeaderStillChecksOverlaps() {
        String h = "{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[7,15]}}";
        assertThatThrownBy(() -> SafetensorsReader.detachedHeader("h.json", h.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("h.json").hasMessageContaining("overlap");
    }
}
