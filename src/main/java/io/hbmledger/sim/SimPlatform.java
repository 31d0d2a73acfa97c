package io.hbmledger.sim;

/**
 * SIMULATOR: what differs between the simulated vllm-ascend server on an Ascend host and the
 * simulated vLLM server on a CUDA host: the devices' variable, the log's source files and wording
 * (vllm-ascend's from the corpus logs 2667 and 5044; CUDA vLLM's from vllm-pr17122 (L40S) and
 * vllm-38820: "Model loading took X GiB and Y seconds" from gpu_model_runner.py), and what the
 * runtime takes per rank before the weights. Sizes are the simulator's own where no corpus file
 * gives them.
 *
 * @param visibleEnv     the variable naming the devices a server may use
 * @param deviceWord     NPU or GPU, in messages and out-of-memory errors
 * @param deviceConfig   vLLM's device_config
 * @param runner         the model runner's source file
 * @param worker         the worker's source file
 * @param runtimeTags    allocation tags taken at device init
 * @param runtimeBytes   their sizes, in the same order
 * @param collectiveTag  tag of the collective buffers of a profile run with TP x DP > 1
 * @param collectiveBytes their size
 */
record SimPlatform(String visibleEnv, String deviceWord, String deviceConfig, String runner, String worker,
                   String[] runtimeTags, long[] runtimeBytes, String collectiveTag, long collectiveBytes) {

    /** vllm-ascend: CANN runtime 92.1875 MB and GE 76 MB, HCCL 404.0625 MB (the corpus npu_module_mem export). */
    static final SimPlatform ASCEND = new SimPlatform("ASCEND_RT_VISIBLE_DEVICES", "NPU", "npu", "model_runner_v1.py", "worker_v1.py",
            new String[] {"runtime", "ge"}, new long[] {92 * SimState.MIB + 192 * 1024, 76 * SimState.MIB},
            "hccl", 404 * SimState.MIB + 64 * 1024);

    /**
     * CUDA: a CUDA context of 520 MiB per process (the order of what an H100 process shows in
     * nvidia-smi before it allocates anything) and NCCL buffers of 272 MiB per rank: both the
     * simulator's figures.
     */
    static final SimPlatform CUDA = new SimPlatform("CUDA_VISIBLE_DEVICES", "GPU", "cuda", "gpu_model_runner.py", "gpu_worker.py",
            new String[] {"cuda_context"}, new long[] {520 * SimState.MIB}, "nccl", 272 * SimState.MIB);

    static SimPlatform of(SimState s) {
        return s.gpu() ? CUDA : ASCEND;
    }

    boolean cuda() {
        return this == CUDA;
    }
}
