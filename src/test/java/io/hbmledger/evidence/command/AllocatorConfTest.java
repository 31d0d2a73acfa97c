package io.hbmledger.evidence.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hbmledger.evidence.Observation;
import org.junit.jupiter.api.Test;

/**
 * The allocator variable as collect_env lists it (vllm/collect_env.py get_env_vars: "NAME=value"
 * per line), as a shell or Python sets it, and not where torch's own OOM text advises it.
 */
class AllocatorConfTest {

    @Test
    void collectEnvShellAndPythonAssignments() {
        assertThat(AllocatorConf.read("PYTORCH_NPU_ALLOC_CONF=expandable_segments:True", 3))
                .extracting(o -> o.quantity().contractName(), Observation::value, Observation::text, o -> o.context().component(),
                        Observation::line)
                .containsExactly(tuple("expandable_segments", 1.0, "expandable_segments:True", "PYTORCH_NPU_ALLOC_CONF", 3));
        // vllm-ascend #8809's run.sh (shared case, resolution-comment-excerpt.md line 38), quotes removed
        assertThat(AllocatorConf.read("export PYTORCH_NPU_ALLOC_CONF=\"expandable_segments:True\"", 38))
                .extracting(Observation::value, Observation::text).containsExactly(tuple(1.0, "expandable_segments:True"));
        assertThat(AllocatorConf.read("PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,expandable_segments:True vllm serve m", 1))
                .extracting(Observation::value).containsExactly(1.0);
        assertThat(AllocatorConf.read("docker run -e PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128 img", 1))
                .extracting(Observation::value, Observation::text).containsExactly(tuple(0.0, "max_split_size_mb:128"));
        assertThat(AllocatorConf.read("os.environ[\"PYTORCH_CUDA_ALLOC_CONF\"] = \"expandable_segments:True\"", 1))
                .extracting(Observation::value).containsExactly(1.0);
        assertThat(AllocatorConf.read("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False", 1))
                .extracting(Observation::value).containsExactly(0.0);
    }

    @Test
    void advisedOrUnknownIsNotSet() {
        // torch 2.1+'s OOM message ends with advice, not a setting
        assertThat(AllocatorConf.read("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. If reserved but"
                + " unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid"
                + " fragmentation.", 1)).isEmpty();
        assertThat(AllocatorConf.read("export PYTORCH_NPU_ALLOC_CONF=$ALLOC", 1)).isEmpty();
        assertThat(AllocatorConf.read("PYTORCH_CUDA_ALLOC_CONF=", 1)).isEmpty();
    }
}
