package io.hbmledger.plan;

import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.settings.RunReading;
import io.hbmledger.settings.Setting;
import io.hbmledger.verdict.Fact;
import io.hbmledger.verdict.Figure;
import io.hbmledger.verdict.ServerFacts;
import java.util.List;
import java.util.Optional;

/**
 * A run's figures as a calibration: vLLM's budget facts of its first server instance that sized
 * a KV cache, and the ledger lines of its first device (TP ranks hold the same non-KV memory).
 * Pure: the run is already read ({@link RunReading}).
 */
public final class CalibrationReader {

    private CalibrationReader() {
    }

    /**
     * @param run the run as named
     * @param blockSize the run's KV block size, to turn vLLM's token count into blocks
     */
    public static Calibration of(String run, RunReading r, int blockSize) {
        ServerFacts s = r.facts().servers().stream().filter(x -> x.has(Fact.KV_CACHE)).findFirst()
                .orElse(r.facts().servers().isEmpty() ? null : r.facts().servers().get(0));
        DeviceLedger d = r.ledger().devices().isEmpty() ? null : r.ledger().devices().get(0);
        Integer hidden = r.run().evidence().checkpoint() == null || r.run().evidence().checkpoint().checkpoint().config() == null ? null
                : r.run().evidence().checkpoint().checkpoint().config().hiddenSize();
        Figure tokens = fact(s, Fact.KV_TOKENS);
        Figure blocks = fact(s, Fact.GPU_BLOCKS);
        if (blocks == null && tokens != null) {
            Integer bs = r.settings().integer(Setting.BLOCK_SIZE);
            int b = bs != null ? bs : blockSize;
            blocks = Figure.value("blocks", Math.floor(tokens.value() / b), Confidence.INFERRED,
                    String.format(java.util.Locale.ROOT, "%.0f tokens / %d tokens per block", tokens.value(), b), tokens.sources());
        }
        Figure graph = entry(d, Component.GRAPH_POOL).orElse(fact(s, Fact.GRAPH_POOL));
        return new Calibration(run, r.settings(), hidden, fact(s, Fact.WEIGHTS), fact(s, Fact.ACTIVATION_PEAK), fact(s, Fact.NON_TORCH),
                entry(d, Component.PROFILE_PEAK_REST).orElse(null), entry(d, Component.HCCL).orElse(null), graph,
                fact(s, Fact.TOTAL_SEEN), Optional.ofNullable(fact(s, Fact.KV_CACHE)).or(() -> entry(d, Component.KV_CACHE)).orElse(null),
                tokens, blocks);
    }

    private static Figure fact(ServerFacts s, Fact f) {
        return s == null ? null : s.get(f).orElse(null);
    }

    private static Optional<Figure> entry(DeviceLedger d, String component) {
        if (d == null) {
            return Optional.empty();
        }
        for (Entry e : d.entries()) {
            if (e.component().equals(component) && e.known()) {
                return Optional.of(new Figure(component, e.bytes(), null, e.confidence(), e.arithmetic(), List.copyOf(e.sources())));
            }
        }
        return Optional.empty();
    }
}
