package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.StatedIdle;
import io.hbmledger.evidence.StatedStart;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the prose above a pasted table says of when it was taken; the phrase nearest the table wins. */
class IdlePhrasesTest {

    private static Optional<StatedIdle> of(String... prose) {
        return IdlePhrases.of(List.of(prose), 1, prose.length);
    }

    @Test
    void beforeTheStartOrIdleIsAnIdleTable() {
        assertThat(of("Before starting vLLM, npu-smi shows:")).contains(new StatedIdle(1, "Before starting"));
        assertThat(of("All eight cards are idle here:")).contains(new StatedIdle(1, "are idle"));
        // vllm-ascend issues in Chinese: "启动vllm之前 npu-smi 如下" / "空闲时"
        assertThat(of("启动vllm之前，npu-smi info 如下：")).map(StatedIdle::phrase).contains("启动vllm之前");
        assertThat(of("卡空闲时的显存：")).map(StatedIdle::phrase).contains("空闲");
        // the phrase on the line nearest the table
        assertThat(of("I tried many things.", "Before launching the server:")).map(StatedIdle::line).contains(2);
    }

    @Test
    void aTableAfterTheStartIsNot() {
        assertThat(of("After starting vLLM, npu-smi shows:")).isEmpty();
        assertThat(of("Once vLLM is up, MIS-TEI cannot start. npu-smi:")).isEmpty();
        assertThat(of("vllm启动后，npu-smi如下：")).isEmpty();
        // both on one line: the later phrase, nearer the table, says when
        assertThat(of("Before starting it the card had 3 GB; after starting it npu-smi shows:")).isEmpty();
        assertThat(of("Before starting vLLM the cards were idle.", "After starting it:")).isEmpty();
        assertThat(of("npu-smi:")).isEmpty();
    }

    @Test
    void theStartInThePastTenseCountsToo() {
        // "after I started" said nothing, so the earlier "Before starting" decided: a table of a
        // loaded card (59872 MiB) was taken as the idle baseline
        assertThat(of("Before starting, the card had 3 GB used; after I started vLLM, npu-smi showed:")).isEmpty();
        assertThat(of("After we launched the server:")).isEmpty();
        assertThat(of("Before I started vLLM, npu-smi showed:")).contains(new StatedIdle(1, "Before I started"));
        assertThat(of("Prior to launching vllm the card looked like this:")).contains(new StatedIdle(1, "Prior to launching"));
        // the command as inline code: "after `vllm serve` started" said nothing either
        assertThat(of("Before starting the card had 3 GB; after `vllm serve` started, npu-smi shows:")).isEmpty();
        assertThat(of("Before `vllm serve`, npu-smi shows:")).map(StatedIdle::phrase).contains("Before `vllm");
        // the server up, no request yet: not idle
        assertThat(of("After starting vLLM, before any request:")).isEmpty();
    }

    @Test
    void aTableAfterTheStartIsSaidToBeStarted() {
        assertThat(IdlePhrases.above(List.of("After starting vLLM, npu-smi shows:"), 1, 1).started())
                .isEqualTo(new StatedStart(1, "After starting"));
        assertThat(IdlePhrases.above(List.of("vllm启动后，npu-smi如下："), 1, 1).started()).extracting(StatedStart::phrase)
                .isEqualTo("启动后");
        assertThat(IdlePhrases.above(List.of("npu-smi:"), 1, 1).any()).isFalse();
    }

    private static IdlePhrases.Said below(String line) {
        return IdlePhrases.below(List.of("| 0 0 | 641248 | | 113 |", line), 2);
    }

    @Test
    void aSentenceRightBelowATableThatPointsBackAtItSaysWhenItWasTaken() {
        assertThat(below("The above is before starting vLLM.").idle()).isEqualTo(new StatedIdle(2, "before starting"));
        assertThat(below("以上是启动vllm之前的npu-smi").idle()).extracting(StatedIdle::phrase).isEqualTo("启动vllm之前");
        assertThat(below("Above: after starting the server").started()).isEqualTo(new StatedStart(2, "after starting"));
        // the clause ending in a colon introduces the next table; the one before it speaks of this one
        assertThat(below("The above is idle; after starting vLLM v0.9.1:").idle()).isEqualTo(new StatedIdle(2, "is idle"));
        // no word pointing back: it may speak of the next table as well
        assertThat(below("Before starting vLLM the cards were idle.").any()).isFalse();
        // only a colon-ended clause pointing back: it introduces what follows
        assertThat(below("Above is the log; after starting vLLM:").any()).isFalse();
    }

    @Test
    void servingOrStartedUpIsStartedButAWorkloadIsNeitherStartNorIdle() {
        assertThat(IdlePhrases.above(List.of("While serving, npu-smi shows:"), 1, 1).started())
                .isEqualTo(new StatedStart(1, "While serving"));
        assertThat(IdlePhrases.above(List.of("After startup:"), 1, 1).started()).isEqualTo(new StatedStart(1, "After startup"));
        // a sample under load: not the server just started, nor (before it) idle devices
        assertThat(IdlePhrases.above(List.of("After running the benchmark, npu-smi shows:"), 1, 1).any()).isFalse();
        assertThat(IdlePhrases.above(List.of("while running requests:"), 1, 1).any()).isFalse();
        assertThat(of("Before running the benchmark:")).isEmpty();
        // the file-head form (no fence) says either
        assertThat(IdlePhrases.aboveFirstTable(List.of("After vLLM started, npu-smi shows:", "+----+", "| 0 |")).started())
                .isEqualTo(new StatedStart(1, "After vLLM"));
    }
}
