package io.hbmledger.evidence.nvidiasmi;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.NulLines;
import io.hbmledger.evidence.smitable.SmiLines;
import io.hbmledger.evidence.smitable.SmiParse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reader for plain {@code nvidia-smi} tables ({@value NvidiaSmiTableParser#FORMAT}) and
 * {@code nvidia-smi --query-gpu / --query-compute-apps --format=csv} output
 * ({@value NvidiaSmiCsvParser#FORMAT}). Recognised by content: the {@code NVIDIA-SMI} title or
 * a GPU / MIG header row, or a CSV header made of nvidia-smi field names with a memory field.
 * A vLLM log quoting a table among more log lines is left to the log reader, and msprof CSV
 * exports (whose headers are not nvidia-smi field names) are not claimed.
 */
public final class NvidiaSmiReader implements EvidenceReader {

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        if (head.looksBinary()) {
            return Optional.empty();
        }
        String text = SmiLines.decode(head.head());
        List<String> lines = SmiLines.lines(text).stream().map(SmiLines::clean).toList();
        if (SmiLines.isMostlyTable(lines, NvidiaSmiTableParser::isHeader)) {
            return Optional.of(NvidiaSmiTableParser.FORMAT);
        }
        // process rows pasted without their header: the type column and the MiB leave one reading
        if (!SmiLines.hasLogLine(lines) && lines.stream().anyMatch(NvidiaSmiHeaderlessProcesses::isRow)) {
            return Optional.of(NvidiaSmiTableParser.FORMAT);
        }
        if (NvidiaSmiCsvParser.looksLikeCsv(text)) {
            return Optional.of(NvidiaSmiCsvParser.FORMAT);
        }
        return Optional.empty();
    }

    @Override
    public Optional<EvidenceFile> readText(String text, String displayPath, EvidenceFormat format) {
        SmiParse parsed = NvidiaSmiCsvParser.FORMAT == format
                ? NvidiaSmiCsvParser.parse(text)
                : NvidiaSmiTableParser.parse(text);
        return Optional.of(new EvidenceFile(displayPath, format, parsed.observations(), parsed.warnings()));
    }

    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head) throws IOException, EvidenceException {
        EvidenceFormat format = detect(head).orElseThrow(() -> new EvidenceException(displayPath, 1,
                "expected nvidia-smi output, found other content"));
        NulLines nul = new NulLines();
        String text = nul.blank(SmiLines.decode(Files.readAllBytes(file)));
        SmiParse parsed;
        try {
            parsed = NvidiaSmiCsvParser.FORMAT == format ? NvidiaSmiCsvParser.parse(text) : NvidiaSmiTableParser.parse(text);
        } catch (de.siegmar.fastcsv.reader.CsvParseException e) {
            // FastCSV refuses a record over its limits (16,384 fields, 16 MiB per field); its message names the line
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("line (\\d{1,9})").matcher(String.valueOf(e.getMessage()));
            int line = m.find() ? Integer.parseInt(m.group(1)) : 0;
            throw new EvidenceException(displayPath, line, "expected nvidia-smi --format=csv output (one field per queried"
                    + " property), found a CSV record the reader cannot hold (" + e.getMessage() + "); check that this is the"
                    + " output of nvidia-smi --query-gpu or --query-compute-apps");
        }
        List<String> warnings = new ArrayList<>();
        nul.warning().ifPresent(warnings::add);
        warnings.addAll(parsed.warnings());
        return new EvidenceFile(displayPath, format, parsed.observations(), warnings);
    }
}
