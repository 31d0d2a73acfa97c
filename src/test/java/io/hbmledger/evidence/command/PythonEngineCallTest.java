package io.hbmledger.evidence.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * vLLM's Python API as users paste it: vllm-ascend #14004's call over several lines (Qwen3-0.6B
 * on a 310P at 0.5), a one-line call, and the shapes that are not the deployment's (a nested
 * drafter config, other methods and names).
 */
class PythonEngineCallTest {

    private static List<Observation> read(String text) {
        PythonEngineCall call = new PythonEngineCall();
        List<Observation> out = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            out.addAll(call.read(lines[i], i + 1));
        }
        return out;
    }

    private static Observation only(List<Observation> obs, Quantity q) {
        List<Observation> of = obs.stream().filter(o -> o.quantity() == q).toList();
        assertThat(of).as(q + " in " + obs).hasSize(1);
        return of.get(0);
    }

    @Test
    void ascend14004CallOverSeveralLines() {
        List<Observation> obs = read("""
                from vllm import LLM

                LLM(
                    model="Qwen/Qwen3-0.6B",
                    dtype="float16",
                    tensor_parallel_size=1,
                    max_num_seqs=1,
                    max_model_len=4096,
                    gpu_memory_utilization=0.5,
                )
                llm.generate(prompts, max_model_len=99)
                """);
        assertThat(only(obs, Quantity.MODEL).text()).isEqualTo("Qwen/Qwen3-0.6B");
        assertThat(only(obs, Quantity.MODEL).line()).isEqualTo(4);
        assertThat(only(obs, Quantity.TENSOR_PARALLEL_SIZE).value()).isEqualTo(1);
        // after the call closed on line 10, line 11's keyword is not the engine's
        assertThat(only(obs, Quantity.MAX_MODEL_LEN).value()).isEqualTo(4096);
        assertThat(only(obs, Quantity.MAX_MODEL_LEN).line()).isEqualTo(8);
    }

    @Test
    void oneLineCallWithADrafterConfigReadsOnlyTheEnginesKeywords() {
        List<Observation> obs = read("llm = LLM(model='meta-llama/Llama-3.1-8B-Instruct', speculative_config={'model':"
                + " 'yuhuili/EAGLE3', 'max_model_len': 2048}, max_model_len=8192, enforce_eager=True, kv_cache_dtype='fp8')");
        assertThat(only(obs, Quantity.MODEL).text()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
        assertThat(only(obs, Quantity.MAX_MODEL_LEN).value()).isEqualTo(8192);
        assertThat(only(obs, Quantity.ENFORCE_EAGER).value()).isEqualTo(1);
        assertThat(only(obs, Quantity.KV_CACHE_DTYPE_BYTES).value()).isEqualTo(1);
    }

    @Test
    void otherNamesAreNoCall() {
        assertThat(read("model = MyLLM(model='x', max_model_len=10)\nout = llm.LLM(model='y')\nmax_model_len=4096")).isEmpty();
    }

    /**
     * vllm PR #19096's test script: model=model_path, tensor_parallel_size=tp_size and
     * enforce_eager=enforce_eager are Python variables, not the settings' values: none is read.
     */
    @Test
    void variablesAreNoSettings() {
        assertThat(read("""
                    llm = LLM(
                        model=model_path,
                        tensor_parallel_size=tp_size,
                        enforce_eager=enforce_eager,
                        distributed_executor_backend="external_launcher",
                    )
                """)).isEmpty();
    }
}
