package io.hbmledger.evidence.safetensors;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test-only safetensors writer: builds files from tensor declarations (name, dtype, shape and
 * the byte size the test states), laid out as huggingface/safetensors does: u64 little-endian
 * header length, JSON header padded with spaces to a multiple of 8, contiguous data. Data bytes
 * are zeros. Raw variants write any declared length or header text, to build malformed files.
 */
public final class SafetensorsWriter {

    /** One tensor; {@code bytes} is stated by the test, not computed here. */
    public record Decl(String name, String dtype, long[] shape, long bytes) {
    }

    private final List<Decl> tensors = new ArrayList<>();
    private String metadataJson;

    public SafetensorsWriter add(String name, String dtype, long bytes, long... shape) {
        tensors.add(new Decl(name, dtype, shape, bytes));
        return this;
    }

    public SafetensorsWriter metadata(String json) {
        this.metadataJson = json;
        return this;
    }

    /** The header JSON with contiguous offsets from 0. */
    public String headerJson() {
        StringBuilder b = new StringBuilder("{");
        if (metadataJson != null) {
            b.append("\"__metadata__\":").append(metadataJson);
        }
        long off = 0;
        for (Decl t : tensors) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append('"').append(t.name()).append("\":{\"dtype\":\"").append(t.dtype()).append("\",\"shape\":[");
            for (int i = 0; i < t.shape().length; i++) {
                b.append(i == 0 ? "" : ",").append(t.shape()[i]);
            }
            b.append("],\"data_offsets\":[").append(off).append(',').append(off + t.bytes()).append("]}");
            off += t.bytes();
        }
        return b.append('}').toString();
    }

    public long dataBytes() {
        return tensors.stream().mapToLong(Decl::bytes).sum();
    }

    public byte[] build() {
        return file(headerJson(), dataBytes());
    }

    /** A well-formed layout around any header text: length = padded header length. */
    public static byte[] file(String header, long dataBytes) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        int padded = (h.length + 7) / 8 * 8;
        byte[] hp = new byte[padded];
        java.util.Arrays.fill(hp, (byte) ' ');
        System.arraycopy(h, 0, hp, 0, h.length);
        return raw(padded, hp, dataBytes);
    }

    /** Exactly these bytes: declared length, header bytes, then {@code dataBytes} zeros. */
    public static byte[] raw(long declaredLength, byte[] header, long dataBytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(declaredLength).array());
        out.writeBytes(header);
        out.writeBytes(new byte[(int) dataBytes]);
        return out.toByteArray();
    }
}
