package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.TextBytes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reader for vLLM and vllm-ascend server logs (format {@code vllm-log}), V0 and V1, from
 * early 2024 (v0.3) to now, as saved by the server or pasted into an issue.
 *
 * <p>Recognised by content: a vLLM logger record ({@code INFO 04-12 08:21:19 [worker.py:267]}
 * or the older {@code INFO 02-29 19:21:45 model_runner.py:90]}) or one of vLLM's memory
 * phrases, anywhere in the first 64 KiB, so that an excerpt starting mid-way is still
 * recognised. Memory amounts are converted to bytes (see {@link Amounts} for the unit rules),
 * counts, ratios and seconds are values. Parsing is done by {@link VllmLogParser}; this class
 * only streams the file (UTF-8, or UTF-16 after its byte order mark; malformed bytes
 * replaced), so memory does not grow with it.
 */
public final class VllmLogReader implements EvidenceReader {

    public static final EvidenceFormat FORMAT = EvidenceFormat.VLLM_LOG;

    /** Memory phrases that only vLLM / PyTorch print, for excerpts without a logger header. */
    private static final Pattern PHRASES = Pattern.compile(
            "Loading model weights took|Model loading took|model weights take|GPU KV cache size:"
                    + "|Maximum concurrency for|the rest of the memory reserved for KV Cache"
                    + "|Available KV cache memory:|Memory profiling (?:takes|results:)"
                    + "|#\\s*(?:GPU|CUDA|NPU) blocks:|num_gpu_blocks is:"
                    // refusals and errors, also as bare lines without a logger header (ValueError: ...)
                    + "|Free memory on (?:NPU |GPU )?device|No available memory for the cache blocks"
                    + "|KV cache is needed, which is larger than the available KV cache memory"
                    + "|out of memory\\.[^\\n]{0,80}?tried to allocate"
                    // vLLM's failed profiling check (V0 and V1 worker, vllm-ascend's copies)
                    + "|Error in memory profiling\\.\\s*Initial free memory"
                    // a start command: the deployment of the instance it starts
                    + "|(?m)^\\s*(?:[$#>]\\s+)?(?:[A-Z_][A-Z0-9_]*=\\S*\\s+)*(?:vllm\\s+serve\\s|python3?\\s+-m\\s+vllm\\.entrypoints\\.)"
                    // vLLM's Python API with its memory setting: LLM(..., gpu_memory_utilization=0.5)
                    + "|(?<![\\w.])(?:LLM|EngineArgs|AsyncEngineArgs)\\s*\\([^)]{0,2000}?gpu_memory_utilization\\s*=",
            Pattern.CASE_INSENSITIVE);

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        // the same test as every text reader: a log with a few NUL runs (a killed server, a
        // crashed file system) is still a log, its damaged lines are skipped when parsing
        if (head.looksBinary()) {
            return Optional.empty();
        }
        String text = LogSegment.stripColour(head.text());
        if (LogSegment.HEADER.matcher(text).find() || PHRASES.matcher(text).find()) {
            return Optional.of(FORMAT);
        }
        return Optional.empty();
    }

    /**
     * Reads the whole log.
     *
     * @throws IOException when the file cannot be read
     */
    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head)
            throws IOException, EvidenceException {
        return evidence(displayPath, parse(file));
    }

    @Override
    public Optional<EvidenceFile> readText(String text, String displayPath, EvidenceFormat format) {
        return Optional.of(evidence(displayPath, VllmLogParser.parse(text)));
    }

    private static EvidenceFile evidence(String displayPath, VllmLogParser.Result r) {
        List<String> warnings = new ArrayList<>(r.warnings());
        if (r.observations().isEmpty()) {
            warnings.add("line 1: a vLLM log, but it holds no memory figure this reader knows"
                    + " (weights, KV cache, blocks, profiling summary, OOM); nothing to report");
        }
        return new EvidenceFile(displayPath, FORMAT, r.observations(), warnings);
    }

    /**
     * Parses a log file as UTF-8, streaming.
     *
     * @throws IOException when the file cannot be read
     */
    public static VllmLogParser.Result parse(Path file) throws IOException {
        byte[] bom = new byte[2];
        Charset charset = StandardCharsets.UTF_8;
        try (InputStream peek = Files.newInputStream(file)) {
            if (peek.readNBytes(bom, 0, 2) == 2 && TextBytes.utf16(bom)) {
                charset = StandardCharsets.UTF_16; // reads the BOM and drops it
            }
        }
        // decoder replaces malformed bytes (a log cut mid-character, GBK text) with U+FFFD
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Files.newInputStream(file),
                charset.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)), 1 << 16)) {
            return VllmLogParser.parse(in);
        }
    }
}
