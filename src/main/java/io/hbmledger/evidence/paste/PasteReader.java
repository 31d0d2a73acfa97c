package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidencePart;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.TextLines;
import io.hbmledger.evidence.vllmlog.VllmLogReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reader for text that mixes prose with machine output ({@code pasted-text}): an issue's markdown,
 * a terminal session, a chat message. Each fenced block, and each run of output lines in the
 * prose ({@link PasteSegmenter}), is handed to the reader that recognises it by content, as a
 * file would be; log and error lines that no reader claims (bare {@code ValueError: ...} lines,
 * a {@code [rank1]:} OOM glued to a progress bar, a {@code vllm serve} command) go to the vLLM
 * log reader. Every observation cites its line in the pasted file, and the result lists which
 * line ranges were read as what ({@link EvidencePart}); prose is skipped.
 *
 * <p>Recognised by content, in two places of the detection order: a text with a markdown fence
 * ({@code ```}), or without one but holding both a device table and log lines, before the
 * one-format text readers, because a paste may quote several tools and no single reader would
 * see them all; any other text that no reader claimed but that holds an
 * output line or speaks of vLLM / NPU / GPU memory, after them.
 */
public final class PasteReader implements EvidenceReader {

    public static final EvidenceFormat FORMAT = EvidenceFormat.PASTED_TEXT;

    /** The label of a start command written as inline code in prose ({@link InlineCommands}). */
    static final String INLINE = "inline code in prose";

    private static final Pattern FENCE = Pattern.compile("(?m)^\\s{0,3}(?:> ?)*(?:```|~~~)");
    /** Prose about this tool's subject: enough to take a paste without output as one, and say so. */
    private static final Pattern SUBJECT = Pattern.compile(
            "(?i)\\bvllm\\b|vllm-ascend|npu-smi|nvidia-smi|msprof|--gpu-memory-utilization|--tensor-parallel-size"
                    + "|\\bHBM\\b|\\bNPU\\b|\\bCUDA\\b|\\bKV cache\\b|显存|内存");

    private final List<EvidenceReader> inner;
    private final boolean fencedOnly;

    /**
     * @param inner the readers a block is handed to, in detection order
     * @param fencedOnly true for the place before the text readers (only texts with a fence),
     *     false for the fallback after them
     */
    public PasteReader(List<EvidenceReader> inner, boolean fencedOnly) {
        this.inner = List.copyOf(inner);
        this.fencedOnly = fencedOnly;
    }

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        if (head.looksBinary()) {
            return Optional.empty();
        }
        String text = head.text();
        if (FENCE.matcher(text).find()) {
            return Optional.of(FORMAT);
        }
        List<String> lines = TextLines.split(text);
        if (fencedOnly) {
            // an unfenced paste that holds a device table and log lines too: one-format readers
            // would each take the whole text and drop what the other tool printed
            // or two tables the prose tells apart (idle, then after the start): one reader would give them one moment
            return mixesTools(lines) || TablesToldApart.toldApart(lines, 1, PasteSegmenter.split(lines))
                    ? Optional.of(FORMAT) : Optional.empty();
        }
        boolean output = lines.stream().map(PasteLine::of).anyMatch(k -> k == PasteLine.SMI || k == PasteLine.LOG);
        return output || SUBJECT.matcher(text).find() ? Optional.of(FORMAT) : Optional.empty();
    }

    /**
     * A device table with log lines, or with what the prose itself gives (a start command as inline
     * code, a share stated as a percentage): the npu-smi reader would take the text whole and drop
     * the start command of "vLLM was started with `vllm serve M --gpu-memory-utilization 0.85`".
     */
    private static boolean mixesTools(List<String> lines) {
        boolean smi = false;
        boolean log = false;
        for (PasteSegment s : PasteSegmenter.split(lines)) {
            smi |= s.kind() == PasteLine.SMI;
            log |= s.kind() == PasteLine.LOG;
            log |= s.kind() == PasteLine.PROSE && (!InlineCommands.find(lines, s.first(), s.last()).isEmpty()
                    || !UtilizationStatement.read(lines, s.first(), s.last()).isEmpty());
        }
        return smi && log;
    }

    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head) throws IOException, EvidenceException {
        return read(TextBytes.decode(Files.readAllBytes(file)), displayPath);
    }

    /**
     * Reads pasted text. Pure apart from the readers it hands blocks to (which read text, not files).
     *
     * @throws EvidenceException when a block is recognised but malformed beyond use (a broken config.json)
     */
    public EvidenceFile read(String text, String displayPath) throws EvidenceException {
        List<String> lines = TextLines.split(text.startsWith("\uFEFF") ? text.substring(1) : text);
        List<EvidencePart> parts = new ArrayList<>();
        PasteSegment proseAbove = null;
        List<PasteSegment> segments = PasteSegmenter.split(lines);
        for (int i = 0; i < segments.size(); i++) {
            PasteSegment s = segments.get(i);
            boolean container = containerPart(lines, s, parts);
            if (s.kind() == PasteLine.PROSE) {
                proseAbove = s;
                List<InlineCommands.Command> commands = InlineCommands.find(lines, s.first(), s.last());
                // a setting inside a command is the command's, read with it below, not a statement of another instance's share
                List<Observation> stated = new ArrayList<>(UtilizationStatement.read(lines, s.first(), s.last()).stream()
                        .filter(o -> commands.stream().noneMatch(c -> o.line() >= c.first() && o.line() <= c.last()))
                        .toList());
                stated.addAll(ServiceStatement.read(lines, s.first(), s.last()));
                stated.addAll(RollbackStatement.read(lines, s.first(), s.last()));
                if (!stated.isEmpty()) {
                    parts.add(new EvidencePart(s.first(), s.last(), EvidenceFormat.USER_STATEMENT, s.label(), stated, List.of()));
                } else if (!container) {
                    parts.add(new EvidencePart(s.first(), s.last(), EvidenceFormat.UNKNOWN, s.label(), List.of(), List.of()));
                }
                List<Observation> env = EnvironmentLines.read(lines, s.first(), s.last(),
                        commands.stream().map(c -> new int[] {c.first(), c.last()}).toList());
                if (!env.isEmpty()) {
                    parts.add(new EvidencePart(s.first(), s.last(), EvidenceFormat.ENVIRONMENT, s.label(), env, List.of()));
                }
                for (InlineCommands.Command c : commands) {
                    asLog("\n".repeat(c.first() - 1) + String.join("\n", c.texts()) + "\n", displayPath)
                            .map(f -> new EvidencePart(c.first(), c.last(), f.format(), INLINE, f.observations(), f.warnings()))
                            .ifPresent(parts::add);
                }
                continue;
            }
            Optional<EvidencePart> whole = dispatch(lines, s, displayPath);
            PasteSegment said = proseAbove;
            proseAbove = null;
            if (whole.isPresent() && whole.get().format().isDeviceSample() && s.kind() == PasteLine.FENCE
                    && readApart(lines, s, said == null ? s.first() : said.first(), displayPath, parts)) {
                continue;
            }
            if (whole.isPresent()) {
                parts.add(whole.get().format().isDeviceSample() ? TablesToldApart.withStated(whole.get(), lines, said,
                        i + 1 < segments.size() && segments.get(i + 1).kind() == PasteLine.PROSE ? segments.get(i + 1) : null)
                        : whole.get());
                continue;
            }
            List<PasteSegment> runs = s.kind() == PasteLine.FENCE ? PasteSegmenter.runsWithin(lines, s) : List.of();
            List<EvidencePart> read = new ArrayList<>();
            for (PasteSegment r : runs) {
                dispatch(lines, r, displayPath).ifPresent(read::add);
            }
            List<Observation> env = read.isEmpty() ? EnvironmentLines.read(lines, s.first(), s.last(), List.of()) : List.of();
            if (!env.isEmpty()) {
                // collect_env output, a start script's exports: no tool's output, but the environment it ran in
                parts.add(new EvidencePart(s.first(), s.last(), EvidenceFormat.ENVIRONMENT, s.label(), env, List.of()));
            } else if (read.isEmpty() && !container) {
                parts.add(new EvidencePart(s.first(), s.last(), EvidenceFormat.UNKNOWN, s.label(), List.of(), List.of()));
            } else {
                parts.addAll(read);
            }
        }
        parts = TablesToldApart.bareBeforeOnlyBesideStarted(parts);
        List<Observation> obs = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (EvidencePart p : parts) {
            obs.addAll(p.observations());
            p.warnings().forEach(w -> warnings.add(p.lines() + " (" + p.shownFormat() + "): " + w));
        }
        obs.sort(Comparator.comparingInt(Observation::line));
        if (parts.stream().noneMatch(EvidencePart::read)) {
            warnings.add("line 1: pasted text with no machine output that a reader knows (npu-smi, nvidia-smi,"
                    + " vLLM log or error lines, config.json); only prose, skipped: paste the tool's output itself");
        }
        return new EvidenceFile(displayPath, FORMAT, obs, warnings, parts);
    }

    /**
     * The cards a container start command in the range gives its container ({@link ContainerCommand}),
     * as a part of their own: the block may hold other output too, read as usual.
     *
     * @return whether the range holds such a command
     */
    private static boolean containerPart(List<String> lines, PasteSegment s, List<EvidencePart> parts) {
        List<Observation> cards = ContainerCommand.read(lines, s.first(), s.last());
        if (cards.isEmpty()) {
            return false;
        }
        parts.add(new EvidencePart(s.first(), s.last(), EvidenceFormat.CONTAINER_COMMAND, s.label(), cards, List.of()));
        return true;
    }

    /**
     * A fenced block holding tables that the prose in it (or right above it, for the first) tells
     * apart ("before: | ... | after starting vLLM: | ... |"): each run of output in it is read on
     * its own, each table with what its prose says.
     *
     * @param from the first line whose prose may speak of the block's first table
     * @return false, adding nothing, when the block's prose does not tell its tables apart
     */
    private boolean readApart(List<String> lines, PasteSegment fence, int from, String displayPath, List<EvidencePart> parts)
            throws EvidenceException {
        List<PasteSegment> runs = PasteSegmenter.runsWithin(lines, fence);
        if (!TablesToldApart.toldApart(lines, from, runs)) {
            return false;
        }
        for (PasteSegment r : runs) {
            Optional<EvidencePart> p = dispatch(lines, r, displayPath);
            if (p.isPresent()) {
                IdlePhrases.Said said = TablesToldApart.above(lines, from, runs, r);
                parts.add(p.get().format().isDeviceSample() ? p.get().withStated(said.idle(), said.started()) : p.get());
            }
        }
        return true;
    }

    /**
     * Hands one range to the first reader that recognises it; log-looking ranges that none
     * claims go to the vLLM log reader. The range is read with the lines before it left blank,
     * so that every observation's line is its line in the pasted file.
     */
    private Optional<EvidencePart> dispatch(List<String> lines, PasteSegment s, String displayPath)
            throws EvidenceException {
        List<String> block = new ArrayList<>();
        for (int i = s.first() - 1; i < s.last(); i++) {
            block.add(PasteLine.unquoted(lines.get(i)));
        }
        String body = String.join("\n", block) + "\n";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        FileHead head = new FileHead(displayPath, bytes.length > FileHead.HEAD_BYTES
                ? java.util.Arrays.copyOf(bytes, FileHead.HEAD_BYTES) : bytes, bytes.length);
        String placed = "\n".repeat(s.first() - 1) + body;
        for (EvidenceReader r : inner) {
            Optional<EvidenceFormat> format = r.detect(head);
            if (format.isPresent()) {
                Optional<EvidenceFile> f = r.readText(placed, displayPath, format.get());
                if (f.isPresent()) {
                    return Optional.of(part(s, f.get()));
                }
            }
        }
        boolean log = s.kind() == PasteLine.LOG
                || s.kind() == PasteLine.FENCE && block.stream().anyMatch(l -> PasteLine.of(l) == PasteLine.LOG);
        return log ? asLog(placed, displayPath).map(f -> part(s, f)) : Optional.empty();
    }

    /** Text placed at its lines, read by the vLLM log reader among the inner readers. */
    private Optional<EvidenceFile> asLog(String placed, String displayPath) throws EvidenceException {
        for (EvidenceReader r : inner) {
            if (r instanceof VllmLogReader) {
                return r.readText(placed, displayPath, VllmLogReader.FORMAT);
            }
        }
        return Optional.empty();
    }

    private static EvidencePart part(PasteSegment s, EvidenceFile f) {
        return new EvidencePart(s.first(), s.last(), f.format(), s.label(), f.observations(), f.warnings());
    }
}
