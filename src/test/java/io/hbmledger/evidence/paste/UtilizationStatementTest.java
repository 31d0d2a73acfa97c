package io.hbmledger.evidence.paste;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Settings stated in prose: instances' shares, not versions, model sizes, retries or sampling knobs. */
class UtilizationStatementTest {

    private static List<Double> read(String line) {
        return UtilizationStatement.read(List.of(line), 1, 1).stream().map(Observation::value).toList();
    }

    @Test
    void theFourInstancesOfVllmAscend8621() {
        // the user's own sentence (description-excerpt.md): "Qwen3-0.6B" is a model size, not a share
        assertThat(read("Qwen3-0.6B模型，在容器中启动vLLM时，分批分档设置--gpu-memory-utilization后启动vLLM：第一个实例设置为0.2启动，"
                + "第二个设置为0.45后启动，第三个设置为0.70后启动， 第四个设置为0.9后启动。"))
                .containsExactly(0.2, 0.45, 0.70, 0.9);
    }

    @Test
    void aRetryIsNotASecondInstance() {
        assertThat(read("I retried --gpu-memory-utilization 0.9, then 0.8 and 0.7, every start was refused")).isEmpty();
    }

    @Test
    void samplingSettingsAndVersionsAreNotShares() {
        assertThat(read("two instances on vllm 0.9.1, --gpu-memory-utilization 0.5 each; temperature 0.7, top_p 0.8"))
                .containsExactly(0.5);
    }
}
