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
    @Test
    void theOperandsOfWorkedArithmeticAreNotSettings() {
        // ../shared/cases/ascend-8621.../case.md line 14, the worked answer: sums, products and a bound
        assertThat(read("- `gpu_memory_utilization` is each instance's own share of the *total*, not a cumulative level: the"
                + " four settings ask for 0.2 + 0.45 + 0.70 + 0.9 = 2.25 x 60.96 = **137.2 GiB** on a 60.96 GiB device."
                + " Budgets that fit side by side must sum to <= ~0.95 (e.g. 4 x 0.22 = 0.88 -> 4 x 13.41 GiB = 53.64 GiB)."))
                .isEmpty();
        // a flag with "=" is a setting; so is a list of shares
        assertThat(read("two instances: --gpu-memory-utilization=0.4 and --gpu-memory-utilization=0.5")).containsExactly(0.4, 0.5);
        assertThat(read("started one after another with `--gpu-memory-utilization` 0.2, 0.45, 0.70 and 0.9 (four containers)"))
                .containsExactly(0.2, 0.45, 0.70, 0.9);
    }

    private static List<String> texts(String line) {
        return UtilizationStatement.read(List.of(line), 1, 1).stream().map(Observation::text).toList();
    }

    @Test
    void sharesWrittenAsPercentages() {
        // 8621's sentence (description-excerpt.md) with each ratio written as a percentage: 0.2 -> 20%, ...
        String line = "Qwen3-0.6B模型，在容器中启动vLLM时，分批分档设置--gpu-memory-utilization后启动vLLM：第一个实例设置为20%启动，"
                + "第二个设置为45%后启动，第三个设置为70%后启动， 第四个设置为90%后启动。";
        assertThat(read(line)).containsExactly(0.2, 0.45, 0.70, 0.9);
        assertThat(texts(line)).containsExactly("20%", "45%", "70%", "90%");
        // without the setting's name, a share of the memory (vllm #2193: two models on one GPU, "each with 50% of memory")
        assertThat(read("If two instances run on the same GPU, each with 50% of memory, one cannot use more")).containsExactly(0.5);
        assertThat(texts("two services on one card: the first takes 30%的显存, the second 显存的60%")).containsExactly("30%", "60%");
    }

    @Test
    void percentagesThatAreReadingsOrNotMemoryAreNotShares() {
        // a reading of use, not a share
        assertThat(read("after the second instance started, 95% of the memory is used")).isEmpty();
        assertThat(read("第二个实例启动后，90%的显存被占用")).isEmpty();
        // a percentage of something else, on a line about instances without the setting
        assertThat(read("the second instance is 30% slower and AICore sits at 100%")).isEmpty();
        // after the setting's name, a reading of use beside the share
        assertThat(read("two instances with --gpu-memory-utilization 50% each, and npu-smi shows HBM usage at 98%"))
                .containsExactly(0.5);
        assertThat(read("两个实例 gpu-memory-utilization 都是 40%，显存占用了95%")).containsExactly(0.4);
        // a percentage operand of worked arithmetic after the setting's name
        assertThat(read("two instances with gpu_memory_utilization: 45% + 60% = 105% of the total")).isEmpty();
    }

    private static List<Double> readLast(String... lines) {
        return UtilizationStatement.read(List.of(lines), lines.length, lines.length).stream().map(Observation::value).toList();
    }

    /**
     * vllm-ascend #7308 (github.com/vllm-project/vllm-ascend/issues/7308): the setting named in the
     * first paragraph, the instances' shares in a list below it as "使用比例0.3", without the name.
     */
    @Test
    void sharesByAWordForShareBelowALineThatNamesTheSetting() {
        String named = "起因：按照vllm在GPU上的部署经验，使用vllm-ascend 0.14.0RC1在分别两个模型配置--gpu-memory-utilization 0.3后，"
                + "第二个模型拉起失败，报错有`Available memory: 0`。";
        assertThat(readLast(named, "", "进行了如下测试：", "- 第一个实例使用比例0.3，第二个实例使用比例0.6时能够拉起两个服务，"
                + "`Available memory`对应值两个服务相同")).containsExactly(0.3, 0.6);
        // a multiple is no share; the version is no ratio
        assertThat(readLast(named, "- 第一个实例使用比例0.8，第二个实例使用比例0.85时能够拉起两个服务，第二个实例的`Available memory`"
                + "远超过了0.05倍，不符预期。")).containsExactly(0.8, 0.85);
        assertThat(readLast(named, "- 切换到0.15.0RC1版本，两个实例均使用0.3比例，第二个实例拉起报错")).containsExactly(0.3);
        assertThat(readLast("two instances, --gpu-memory-utilization set for both:", "the first instance with a ratio of 0.4, the second 0.5"))
                .containsExactly(0.4);
    }

    @Test
    void withoutTheSettingNamedAboveAShareWordSaysNothing() {
        // "利用率" alone may be the AICore's; nothing above says which setting
        assertThat(readLast("两个实例都在跑", "第一个实例利用率0.85，第二个实例使用比例0.3")).isEmpty();
        assertThat(readLast("two instances, I set 0.9 and it fails")).isEmpty();
    }
}
