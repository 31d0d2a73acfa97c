package io.hbmledger.evidence.vllmlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * vLLM's KV refusal is one log line; pastes wrap it. The texts are users' own: a terminal that
 * cut the line at its width, mid-word (SergiioB/intel-arc-pro-b70-inference-cookbook#4, the
 * refusal's end completed from the same thread), and a reader who broke the sentence so that the
 * available figure sits on the next line.
 */
class VllmLogWrappedRefusalTest {

    private static List<Observation> of(List<Observation> all, Quantity q) {
        return all.stream().filter(o -> o.quantity() == q).toList();
    }

    @Test
    void aLineCutMidWordIsReadWholeAndEachFigureKeepsItsLine() {
        List<Observation> obs = VllmLogParser.parse("""
                (EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cach
                e is needed, which is larger than the available KV cache memory (4.25 GiB). Based on the avai
                lable memory, the estimated maximum model length is 99840. Try increasing `gpu_memory_utilization` or decreasing \
                `max_model_len` when initializing the engine.
                """).observations();
        // 4.26 GiB is written on line 1, 4.25 GiB on line 2, 99840 on line 3
        assertThat(of(obs, Quantity.KV_CACHE_NEEDED)).singleElement()
                .satisfies(o -> assertThat(o.line()).isEqualTo(1)).satisfies(o -> assertThat(o.text()).isEqualTo("4.26 GiB"));
        assertThat(of(obs, Quantity.KV_CACHE_AVAILABLE)).singleElement()
                .satisfies(o -> assertThat(o.line()).isEqualTo(2)).satisfies(o -> assertThat(o.text()).isEqualTo("4.25 GiB"));
        assertThat(of(obs, Quantity.ESTIMATED_MAX_MODEL_LEN)).singleElement().satisfies(o -> assertThat(o.value()).isEqualTo(99840));
        // the cut phrase is still the refusal, cited on its first line
        assertThat(of(obs, Quantity.MEMORY_FAILURE)).singleElement().satisfies(o -> assertThat(o.line()).isEqualTo(1));
    }

    @Test
    void theAvailableFigureOnTheNextLineIsRead() {
        List<Observation> obs = VllmLogParser.parse("""
                ValueError: To serve at least one request with the model's max seq len (131072),
                9.5 GiB KV cache is needed, which is larger than the available KV cache memory
                (6.91 GiB). Based on the available memory, the estimated maximum model length is 91520.
                """).observations();
        assertThat(of(obs, Quantity.KV_CACHE_NEEDED)).singleElement().satisfies(o -> assertThat(o.line()).isEqualTo(2));
        assertThat(of(obs, Quantity.KV_CACHE_AVAILABLE)).singleElement()
                .satisfies(o -> assertThat(o.line()).isEqualTo(3)).satisfies(o -> assertThat(o.text()).isEqualTo("6.91 GiB"));
        assertThat(of(obs, Quantity.ESTIMATED_MAX_MODEL_LEN)).hasSize(1);
        assertThat(of(obs, Quantity.MAX_MODEL_LEN)).hasSize(1);
    }

    /**
     * A paste wrapped at about 95 columns: the break falls inside the opening phrase ("To serve at
     * least one request" / "with the models's max seq len") and inside the estimate ("the estimated
     * maximum model" / "length is 12608"), and the sentence runs over five lines. Before, nothing
     * opened the refusal: no failure, no estimate, and the run came out ready.
     */
    @Test
    void aRefusalBrokenInsideItsPhrasesOverFiveLinesIsReadWhole() {
        List<Observation> obs = VllmLogParser.parse("""
                (EngineCore_0 pid=873) INFO 04-12 08:21:19 [gpu_worker.py:276] Available KV cache memory: 2.31 GiB
                (EngineCore_0 pid=873) ERROR 04-12 08:21:19 [core.py:700] ValueError: To serve at least one request
                with the models's max seq len (32768), (6.00 GiB KV cache is needed, which is larger than the
                available KV cache memory (2.31 GiB). Based on the available memory, the estimated maximum model
                length is 12608. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when
                initializing the engine.
                """).observations();
        // 6.00 GiB is written on line 3, 2.31 GiB of the refusal on line 4, 12608 on line 5
        assertThat(of(obs, Quantity.KV_CACHE_NEEDED)).singleElement()
                .satisfies(o -> assertThat(o.line()).isEqualTo(3)).satisfies(o -> assertThat(o.bytes()).isEqualTo(6L << 30));
        assertThat(of(obs, Quantity.ESTIMATED_MAX_MODEL_LEN)).singleElement()
                .satisfies(o -> assertThat(o.line()).isEqualTo(5)).satisfies(o -> assertThat(o.value()).isEqualTo(12608));
        assertThat(of(obs, Quantity.KV_CACHE_AVAILABLE)).extracting(Observation::line).containsExactly(1, 4);
        assertThat(of(obs, Quantity.MEMORY_FAILURE)).singleElement().satisfies(o -> assertThat(o.line()).isEqualTo(2));
    }

    /** A new log record ends the wrap: its figures are its own, not the refusal's. */
    @Test
    void aNewRecordClosesTheRefusalWithoutReadingIt() {
        List<Observation> obs = VllmLogParser.parse("""
                ValueError: To serve at least one request with the model's max seq len (131072),
                INFO 05-14 10:00:52 [gpu_worker.py:276] Available KV cache memory: 3.00 GiB
                """).observations();
        assertThat(of(obs, Quantity.KV_CACHE_AVAILABLE)).singleElement().satisfies(o -> assertThat(o.line()).isEqualTo(2));
    }
}
