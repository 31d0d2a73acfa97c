/**
 * SIMULATOR of an Ascend NPU host, for tests and the demo on machines without NPUs.
 *
 * <p>Nothing here talks to real hardware. A simulated device state lives in a directory
 * ({@code $HBM_SIM_HOME}); three stand-ins read and change it:
 * <ul>
 *   <li>{@link io.hbmledger.sim.NpuSmiSim}: prints {@code npu-smi info} tables in the layout of
 *       real npu-smi 24.1 output (copied from the corpus);</li>
 *   <li>{@link io.hbmledger.sim.VllmServerSim}: a vLLM-like OpenAI-compatible HTTP server that
 *       prints vllm-ascend V1 log lines and takes memory from the simulated devices as it loads,
 *       profiles, serves and stops;</li>
 *   <li>{@link io.hbmledger.sim.MsprofSim}: runs an application while sampling the simulated
 *       devices, and exports CSVs in msprof's {@code mindstudio_profiler_output} layouts.</li>
 * </ul>
 * The launcher scripts are in {@code sim/bin/}; {@code docs/readme-sim.md} says how to use them.
 */
package io.hbmledger.sim;
