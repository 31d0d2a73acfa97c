package io.hbmledger.evidence.npusmi;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.NulLines;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Reader for {@code npu-smi info} tables ({@value NpuSmiInfoParser#FORMAT}),
 * {@code npu-smi info -t usages} / {@code -t memory} key / value output
 * ({@value NpuSmiUsagesParser#FORMAT}) and {@code -t proc-mem} process lines
 * ({@value NpuSmiProcMemParser#FORMAT}). Recognises them by content: a table header row
 * ({@code | NPU Name | Health ...} or {@code | NPU Chip | Process id ...}), a memory key line
 * ({@code HBM Capacity(MB) : 32768}), a device row pair without the header ({@code | 0  910B3 | OK | ...}
 * then {@code | 0 | 0000:C1:00.0 | ...}) or a {@code Process id:n Process name:... Process memory(MB):m} line. A vLLM
 * log that only mentions npu-smi, or quotes a table inside many more log lines, is left to the
 * log reader. Parsing is done by the pure parsers; this class only reads the file.
 */
public final class NpuSmiReader implements EvidenceReader {

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        if (head.looksBinary()) {
            return Optional.empty();
        }
        List<String> lines = cleaned(head.head());
        if (SmiLines.isMostlyTable(lines, NpuSmiInfoParser::isHeader)) {
            return Optional.of(NpuSmiInfoParser.FORMAT);
        }
        // device rows pasted without the header: the parser reads them in npu-smi's fixed layout
        // process rows without their header: two or more, or one alone at npu-smi's own column widths
        if (!SmiLines.hasLogLine(lines) && (NpuSmiDeviceRows.hasPair(lines) || NpuSmiDeviceRows.hasProcessRows(lines))) {
            return Optional.of(NpuSmiInfoParser.FORMAT);
        }
        boolean header = lines.stream().anyMatch(NpuSmiInfoParser::isHeader);
        if (header || SmiLines.hasLogLine(lines)) {
            return Optional.empty();
        }
        if (NpuSmiUsagesParser.looksLikeUsages(lines)) {
            return Optional.of(NpuSmiUsagesParser.FORMAT);
        }
        if (lines.stream().anyMatch(NpuSmiProcMemParser::isProcessLine)) {
            return Optional.of(NpuSmiProcMemParser.FORMAT);
        }
        return Optional.empty();
    }

    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head) throws IOException, EvidenceException {
        EvidenceFormat format = detect(head).orElseThrow(() -> new EvidenceException(displayPath, 1,
                "expected npu-smi output, found other content"));
        NulLines nul = new NulLines();
        List<String> lines = SmiLines.lines(nul.blank(SmiLines.decode(Files.readAllBytes(file))));
        SmiParse parsed = parse(format, lines);
        List<String> warnings = new ArrayList<>();
        nul.warning().ifPresent(warnings::add);
        warnings.addAll(parsed.warnings());
        return new EvidenceFile(displayPath, format, parsed.observations(), warnings);
    }

    @Override
    public Optional<EvidenceFile> readText(String text, String displayPath, EvidenceFormat format) {
        SmiParse parsed = parse(format, SmiLines.lines(text));
        return Optional.of(new EvidenceFile(displayPath, format, parsed.observations(), parsed.warnings()));
    }

    /**
     * Parses text of a detected format. An {@code npu-smi info} file that also holds
     * {@code -t usages} blocks (several commands pasted together) gives both kinds of values.
     */
    public static SmiParse parse(EvidenceFormat format, List<String> lines) {
        List<String> cleaned = lines.stream().map(SmiLines::clean).toList();
        List<SmiParse> parts = new ArrayList<>();
        if (NpuSmiInfoParser.FORMAT == format) {
            parts.add(NpuSmiInfoParser.parse(lines));
        }
        if (NpuSmiUsagesParser.looksLikeUsages(cleaned)) {
            parts.add(NpuSmiUsagesParser.parse(lines));
        }
        if (cleaned.stream().anyMatch(NpuSmiProcMemParser::isProcessLine)) {
            parts.add(NpuSmiProcMemParser.parse(lines));
        }
        if (parts.size() == 1) {
            return parts.get(0);
        }
        List<Observation> all = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (SmiParse p : parts) {
            all.addAll(p.observations());
            warnings.addAll(p.warnings());
        }
        all.sort(Comparator.comparingInt(Observation::line));
        return new SmiParse(all, warnings);
    }

    private static List<String> cleaned(byte[] head) {
        return SmiLines.lines(SmiLines.decode(head)).stream().map(SmiLines::clean).toList();
    }
}
