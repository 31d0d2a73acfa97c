package io.hbmledger.evidence.safetensors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.Quote;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The header of one safetensors file: tensor names, dtypes, shapes and data offsets. Tensor
 * data is never read.
 *
 * <p>Format (huggingface/safetensors, {@code docs} and {@code safetensors/src/tensor.rs}):
 * bytes 0-7 hold N, the header length, as an unsigned 64-bit little-endian integer; bytes
 * 8..8+N hold a UTF-8 JSON object mapping each tensor name to
 * {@code {"dtype", "shape", "data_offsets": [begin, end]}} plus an optional
 * {@code "__metadata__"} string map; the data section follows, offsets being relative to its
 * start. Like the reference implementation, a header longer than {@value #MAX_HEADER_BYTES}
 * bytes is refused before anything is allocated. Unlike it, a gap between tensors or bytes
 * after the last tensor are warnings, not errors: they do not change any tensor's size.
 *
 * @param headerBytes N, the JSON header's length in bytes (without the 8-byte prefix)
 * @param fileSize the whole file's size in bytes
 * @param tensors tensors in header order ({@code __metadata__} excluded)
 * @param metadata the {@code __metadata__} map, empty when absent
 * @param warnings findings that do not make the header unusable
 */
public record SafetensorsHeader(long headerBytes, long fileSize, List<SafetensorsTensor> tensors,
                                Map<String, String> metadata, List<String> warnings) {

    /** The reference implementation's limit ({@code MAX_HEADER_SIZE = 100_000_000}). */
    public static final long MAX_HEADER_BYTES = 100_000_000L;

    private static final ObjectMapper JSON = new ObjectMapper();

    public SafetensorsHeader {
        tensors = List.copyOf(tensors);
        metadata = Map.copyOf(metadata);
        warnings = List.copyOf(warnings);
    }

    /** Sum of all tensors' data sizes, in bytes. */
    public long tensorBytesTotal() {
        long sum = 0;
        for (SafetensorsTensor t : tensors) {
            sum += t.bytes();
        }
        return sum;
    }

    /** Size of the data section in bytes: file size - 8 - N. */
    public long dataBytes() {
        return fileSize - 8 - headerBytes;
    }

    /**
     * Reads the 8-byte length and the JSON header of a file, and nothing after it.
     *
     * @param display the path to name in messages
     * @throws EvidenceException when the header is malformed (see {@link #parse})
     */
    public static SafetensorsHeader read(Path file, String display) throws IOException, EvidenceException {
        long size = Files.size(file);
        try (InputStream in = Files.newInputStream(file)) {
            byte[] prefix = in.readNBytes(8);
            long n = declaredLength(prefix, size, display);
            byte[] json = in.readNBytes((int) n);
            if (json.length != n) {
                throw new EvidenceException(display, 0, "the file ended after " + (8 + json.length)
                        + " bytes while reading a " + n + "-byte header; the file is truncated");
            }
            return parse(display, json, size);
        }
    }

    /**
     * Checks the 8-byte little-endian header length against the file size and the
     * {@value #MAX_HEADER_BYTES}-byte limit.
     *
     * @param prefix the file's first bytes (at least 8 unless the file is shorter)
     * @return the declared header length N in bytes
     * @throws EvidenceException when the file is shorter than 8 bytes, N is 0, N exceeds the
     *     limit, or 8 + N exceeds the file size
     */
    public static long declaredLength(byte[] prefix, long fileSize, String display) throws EvidenceException {
        if (prefix.length < 8 || fileSize < 8) {
            throw new EvidenceException(display, 0, "expected a safetensors file (an 8-byte little-endian header length, then a JSON header), found only "
                    + fileSize + " bytes");
        }
        long raw = ByteBuffer.wrap(prefix, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        String shown = Long.toUnsignedString(raw);
        if (raw == 0) {
            throw new EvidenceException(display, 0, "declared header length is 0 bytes; expected a JSON header of at least 2 bytes ('{}')");
        }
        if (Long.compareUnsigned(raw, MAX_HEADER_BYTES) > 0) {
            throw new EvidenceException(display, 0, "declared header length " + shown + " bytes exceeds the "
                    + MAX_HEADER_BYTES + "-byte limit of the safetensors reference implementation; not read. "
                    + "The file is corrupt or not a safetensors file");
        }
        if (8 + raw > fileSize) {
            throw new EvidenceException(display, 0, "declared header length " + shown + " bytes runs past the end of the file (file size "
                    + fileSize + " bytes, so at most " + (fileSize - 8) + " header bytes); the file is truncated or not a safetensors file");
        }
        return raw;
    }

    /**
     * Parses and validates a header. Pure: bytes in, header out.
     *
     * @param json the N header bytes (after the 8-byte length)
     * @param fileSize the whole file's size, to check offsets against the data section
     * @throws EvidenceException when the header is not UTF-8 JSON, not an object, has offsets
     *     that overlap or run past the data section. An unknown dtype, or offsets that disagree
     *     with dtype x shape, are warnings ({@link SafetensorsFindings}): the offsets give the bytes.
     */
    public static SafetensorsHeader parse(String display, byte[] json, long fileSize) throws EvidenceException {
        return parse(display, json, fileSize, true);
    }

    /**
     * Parses a header saved on its own (the JSON without the 8-byte length and the data), as
     * tools dump it: every check except those against the data section, which is not there.
     * {@link #fileSize()} is then 8 + N + the tensors' extent, as the file would have been.
     */
    public static SafetensorsHeader parseDetached(String display, byte[] json) throws EvidenceException {
        return parse(display, json, Long.MAX_VALUE, false);
    }

    private static SafetensorsHeader parse(String display, byte[] json, long fileSize, boolean withData) throws EvidenceException {
        long n = json.length;
        long dataBytes = withData ? fileSize - 8 - n : Long.MAX_VALUE;
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(json)).toString();
        } catch (CharacterCodingException e) {
            throw new EvidenceException(display, 0, "the " + n + "-byte header is not UTF-8 text; expected a JSON object");
        }
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            // Jackson's limits (1,000 levels of nesting, number and string lengths); such errors carry no location
            throw new EvidenceException(display, 0, "the " + n + "-byte header is beyond what a safetensors header can be ("
                    + e.getOriginalMessage().replaceAll(",? \\(from `.*", "") + "); expected a JSON object nested 3 levels deep");
        } catch (JsonProcessingException e) {
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
            throw new EvidenceException(display, 0, "the " + n + "-byte header is not JSON (" + e.getOriginalMessage()
                    + (at == null ? "" : " at header line " + at.getLineNr() + ", column " + at.getColumnNr()) + "); expected a JSON object");
        }
        if (root == null || !root.isObject()) {
            throw new EvidenceException(display, 0, "the header is JSON but not an object: expected '{' mapping tensor names to {dtype, shape, data_offsets}, found "
                    + (root == null ? "nothing" : describe(root)));
        }
        List<SafetensorsTensor> tensors = new ArrayList<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>(HeaderShape.oddities(JSON, text));
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if ("__metadata__".equals(e.getKey())) {
                if (e.getValue().isObject()) {
                    e.getValue().fields().forEachRemaining(m -> metadata.put(m.getKey(), m.getValue().asText()));
                } else {
                    warnings.add("__metadata__ is " + describe(e.getValue()) + ", expected an object of strings; ignored");
                }
                continue;
            }
            tensors.add(tensor(display, e.getKey(), e.getValue(), dataBytes));
        }
        warnings.addAll(SafetensorsFindings.of(tensors));
        List<SafetensorsTensor> byOffset = new ArrayList<>(tensors);
        byOffset.sort(Comparator.comparingLong(SafetensorsTensor::begin).thenComparingLong(SafetensorsTensor::end));
        long cursor = 0;
        SafetensorsTensor previous = null;
        long gaps = 0;
        for (SafetensorsTensor t : byOffset) {
            if (previous != null && t.begin() < cursor && t.bytes() > 0) {
                throw new EvidenceException(display, 0, "tensors " + Quote.doubleQuoted(previous.name()) + " [" + previous.begin() + ", " + previous.end()
                        + ") and " + Quote.doubleQuoted(t.name()) + " [" + t.begin() + ", " + t.end() + ") overlap; each tensor needs its own bytes");
            }
            if (t.begin() > cursor) {
                gaps += t.begin() - cursor;
            }
            if (t.end() > cursor) {
                cursor = t.end();
                previous = t;
            }
        }
        if (gaps > 0) {
            warnings.add(gaps + " bytes of the data section lie between tensors and belong to none");
        }
        if (!withData) {
            return new SafetensorsHeader(n, 8 + n + cursor, tensors, metadata, warnings);
        }
        if (cursor < dataBytes) {
            warnings.add((dataBytes - cursor) + " bytes after the last tensor (data section " + dataBytes
                    + " bytes, tensors end at " + cursor + ") belong to no tensor");
        }
        return new SafetensorsHeader(n, fileSize, tensors, metadata, warnings);
    }

    static SafetensorsTensor tensor(String display, String name, JsonNode v, long dataBytes) throws EvidenceException {
        String where = "tensor " + Quote.doubleQuoted(name) + ": ";
        if (!v.isObject()) {
            throw new EvidenceException(display, 0, where + "expected an object {dtype, shape, data_offsets}, found " + describe(v));
        }
        JsonNode dt = v.get("dtype");
        if (dt == null || !dt.isTextual()) {
            throw new EvidenceException(display, 0, where + "expected a \"dtype\" string, found " + (dt == null ? "none" : describe(dt)));
        }
        // an unknown name does not stop the reading: the offsets give the bytes exactly (SafetensorsFindings)
        SafetensorsDtype dtype = SafetensorsDtype.parse(dt.asText()).orElse(null);
        JsonNode sh = v.get("shape");
        if (sh == null || !sh.isArray()) {
            throw new EvidenceException(display, 0, where + "expected a \"shape\" array of non-negative integers, found " + (sh == null ? "none" : describe(sh)));
        }
        List<Long> shape = new ArrayList<>();
        for (JsonNode d : sh) {
            if (!d.isIntegralNumber() || !d.canConvertToLong() || d.asLong() < 0) {
                throw new EvidenceException(display, 0, where + "shape " + Quote.cut(sh.toString()) + " has " + Quote.cut(d.toString()) + "; expected non-negative integers");
            }
            shape.add(d.asLong());
        }
        JsonNode off = v.get("data_offsets");
        if (off == null || !off.isArray() || off.size() != 2 || !off.get(0).isIntegralNumber() || !off.get(1).isIntegralNumber()
                || !off.get(0).canConvertToLong() || !off.get(1).canConvertToLong()) {
            throw new EvidenceException(display, 0, where + "expected \"data_offsets\": [begin, end] (two integers), found " + (off == null ? "none" : describe(off)));
        }
        long begin = off.get(0).asLong();
        long end = off.get(1).asLong();
        if (begin < 0 || end < begin) {
            throw new EvidenceException(display, 0, where + "data_offsets [" + begin + ", " + end + "] run backwards; expected 0 <= begin <= end");
        }
        if (end > dataBytes) {
            throw new EvidenceException(display, 0, where + "data_offsets end " + end + " is past the data section ("
                    + dataBytes + " bytes after the header); the file is truncated or the header is wrong");
        }
        return new SafetensorsTensor(name, dtype, shape, begin, end, dt.asText());
    }

    private static String describe(JsonNode n) {
        String kind = n.isArray() ? "an array" : n.isTextual() ? "a string" : n.isNumber() ? "a number"
                : n.isBoolean() ? "a boolean" : n.isNull() ? "null" : "an object";
        return kind + " (" + Quote.cut(n.toString()) + ")";
    }
}
