package io.hbmledger.evidence.npusmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.nvidiasmi.NvidiaSmiParsers;
import io.hbmledger.evidence.smitable.SmiParse;
import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Damaged real inputs: every corpus npu-smi / nvidia-smi file cut at random places, with lines
 * dropped, digits lengthened and characters replaced (seeded, so a failure reproduces). The
 * parsers must never throw, and whatever they still report must be well formed.
 */
class SmiParsersRobustnessTest {

    private static final char[] NOISE = {'|', '/', '+', '=', ' ', '9', 'x', '\r', '\t', '-'};

    @Test
    void damagedCorpusFilesNeverThrowAndYieldWellFormedObservations() throws IOException {
        Path root = Corpus.file("truth.json").getParent();
        List<Path> files = new ArrayList<>();
        for (String dir : new String[] {"npu-smi", "nvidia-smi"}) {
            try (Stream<Path> s = Files.list(root.resolve(dir))) {
                files.addAll(s.toList());
            }
        }
        List<Function<String, SmiParse>> parsers = List.of(
                NpuSmiInfoParser::parse, NpuSmiUsagesParser::parse,
                NvidiaSmiParsers::table, NvidiaSmiParsers::csv);
        Random random = new Random(20261129L);
        for (Path f : files) {
            String original = Files.readString(f);
            for (int round = 0; round < 60; round++) {
                String damaged = damage(original, random);
                for (Function<String, SmiParse> parser : parsers) {
                    try {
                        check(parser.apply(damaged));
                    } catch (RuntimeException | AssertionError e) {
                        throw new AssertionError(f.getFileName() + " round " + round + ":\n" + damaged, e);
                    }
                }
            }
        }
    }

    private static void check(SmiParse p) {
        for (Observation o : p.observations()) {
            assertThat(o.line()).isPositive();
            if (o.bytes() != null) {
                assertThat(o.bytes()).isNotNegative();
            }
            if (o.context().device() != null) {
                assertThat(o.context().device()).matches("npu:\\d+/chip:\\d+|gpu:\\d+(/mig:\\d+)?");
            }
        }
        for (String w : p.warnings()) {
            assertThat(w).matches("(line|row) \\d+: .+");
        }
    }

    private static String damage(String text, Random r) {
        StringBuilder s = new StringBuilder(text);
        int edits = 1 + r.nextInt(6);
        for (int i = 0; i < edits && s.length() > 0; i++) {
            int at = r.nextInt(s.length());
            switch (r.nextInt(5)) {
                case 0 -> s.setLength(at); // cut off
                case 1 -> s.setCharAt(at, NOISE[r.nextInt(NOISE.length)]);
                case 2 -> s.insert(at, "99999999999999999999"); // an absurdly wide number
                case 3 -> {
                    int end = s.indexOf("\n", at);
                    s.delete(at, end < 0 ? s.length() : end + 1); // drop the rest of a line and its end
                }
                default -> s.insert(at, "\n");
            }
        }
        return s.toString();
    }
}
