package io.hbmledger.load;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Worker rank from a vLLM log line's worker label (the text in its leading parentheses, as
 * {@code LogSegment} keeps it: {@code Worker_TP1 pid=77}).
 *
 * <p>Ranks are numbered as vLLM numbers them: inside one DP replica {@code pp_rank x TP +
 * tp_rank} (vllm/v1/executor/multiproc_executor.py: {@code rank % tp_size} is the TP rank,
 * {@code rank // tp_size} the PP rank), and replica after replica: global rank = {@code dp_rank
 * x TP x PP + that}. The prefix itself is written by vllm/utils {@code _add_prefix} (later
 * vllm/utils/system_utils.py, called by {@code decorate_logs}) as {@code ({name} pid={pid}) }.
 * The names, by the code that writes them:
 * <ul>
 *   <li>{@code Worker[_DPd][_PPp][_PCPc][_TPt][_DCPk][_EPe]}: V1 multiproc workers from v0.10.2
 *       on ({@code WorkerProc.setup_proc_title_and_log_prefix}, earlier
 *       vllm/v1/worker/utils.py {@code setup_worker_process_title_and_logging}). Each part is
 *       printed only when its group has more than one rank, so a missing TP or PP part means
 *       rank 0 of a size-1 group. A missing DP part does not mean DP rank 0: for a dense model
 *       vllm/v1/engine/core.py {@code run_engine_core} resets each DP replica's
 *       {@code data_parallel_size} to 1, so only MoE workers with DP print {@code _DP}. DCP
 *       splits the TP group and EP spans DP x TP, so neither adds to the rank; PCP (prefill
 *       context parallel) is a dimension this ledger's TP x DP layout does not have. A bare
 *       {@code Worker} is also what newer builds print before the parallel groups exist.</li>
 *   <li>{@code VllmWorker}, {@code VllmWorker TPt}, {@code VllmWorker PPp},
 *       {@code VllmWorker PPp_TPt}: v0.10.0-v0.10.1 multiproc_executor.py ({@code process_name
 *       = f"VllmWorker {suffix}"}, the same "only when the size is above 1" rule).</li>
 *   <li>{@code VllmWorker rank=r}: v0.8-v0.9 multiproc_executor.py ({@code _add_prefix(sys.stdout,
 *       f"VllmWorker rank={rank}", pid)}); r is the rank inside the DP replica.</li>
 *   <li>{@code EngineCore_n} (v0.8-v0.9, {@code name=f"EngineCore_{index}"}),
 *       {@code EngineCore_DPn} and {@code EngineCore} (later vllm/v1/engine/utils.py
 *       {@code CoreEngineProcManager}, {@code "EngineCore_DP{global_index}" if is_dp else
 *       "EngineCore"}); n is the DP rank. The engine core runs the worker in its own process
 *       only when TP x PP is 1, so only then is it a worker rank.</li>
 *   <li>No rank: V0 {@code VllmWorkerProcess} (vllm/executor/multiproc_worker_utils.py), Ray's
 *       {@code RayWorkerWrapper} and vllm-ascend's {@code NPURayWorkerWrapper} (Ray's own
 *       {@code (Class pid=, ip=)} prefix), the front-end {@code APIServer} / {@code ApiServer_n}.</li>
 * </ul>
 * Where the name leaves the DP rank out, the log may still tell it: a worker line nested under its
 * engine core's prefix ({@code (EngineCore_DP1 pid=9) (Worker_TP0 pid=12)}) belongs to that DP
 * replica, and the log reader keeps that as the observation's {@code dpRank}. Otherwise it is DP
 * rank 0 only when the deployment has one DP replica; the parallel_state.py line "rank R in world
 * size W is assigned as DP rank D" does not help, as a dense model's replica prints DP rank 0. A label whose TP or PP rank does not fit the deployment's sizes (a wrong --tp) gets
 * its nominal number only when that lies outside the deployment, where {@code ledger.RankCoverageRule}
 * reports it; inside, the number would be another worker's rank, so it gets none.
 */
public final class RankLabels {

    private static final Pattern WORKER = Pattern.compile(
            "Worker(?:_DP(?<dp>\\d+))?(?:_PP(?<pp>\\d+))?(?:_PCP(?<pcp>\\d+))?(?:_TP(?<tp>\\d+))?(?:_DCP\\d+)?(?:_EP\\d+)?");
    private static final Pattern VLLM_WORKER = Pattern.compile(
            "VllmWorker(?:\\s+rank=(?<rank>\\d+)|\\s+(?:PP(?<pp>\\d+))?_?(?:TP(?<tp>\\d+))?)?");
    private static final Pattern ENGINE = Pattern.compile("EngineCore(?:_(?:DP)?(?<dp>\\d+))?");

    private RankLabels() {
    }

    /**
     * @param label the worker label, e.g. {@code Worker_DP1_TP0 pid=5}; null gives null
     * @param tp tensor-parallel size of the deployment
     * @param pp pipeline-parallel size
     * @param dp data-parallel size
     * @return the global rank, or null when the label does not tell it
     */
    public static Integer rankOf(String label, int tp, int pp, int dp) {
        return rankOf(label, null, tp, pp, dp);
    }

    /**
     * @param label the worker label, e.g. {@code Worker_TP0 pid=5}; null gives null
     * @param dpRank the DP replica the log places the line in beyond the label (an enclosing
     *     engine core), or null; a DP part of the label itself wins
     * @param tp tensor-parallel size of the deployment
     * @param pp pipeline-parallel size
     * @param dp data-parallel size
     * @return the global rank, or null when the label does not tell it
     */
    public static Integer rankOf(String label, Integer dpRank, int tp, int pp, int dp) {
        if (label == null) {
            return null;
        }
        String name = label.replaceFirst("\\s*\\bpid=.*$", "").strip();
        Integer dpAbsent = dpRank != null ? dpRank : dp == 1 ? Integer.valueOf(0) : null;
        Matcher m = WORKER.matcher(name);
        if (m.matches()) {
            if (m.group("pcp") != null) {
                return null;
            }
            return place(m.group("dp") != null ? Integer.valueOf(m.group("dp")) : dpAbsent,
                    part(m.group("pp"), pp), part(m.group("tp"), tp), tp, pp, dp);
        }
        m = VLLM_WORKER.matcher(name);
        if (m.matches()) {
            if (m.group("rank") != null) {
                int r = Integer.parseInt(m.group("rank"));
                return place(dpAbsent, r / tp, r % tp, tp, pp, dp);
            }
            return place(dpAbsent, part(m.group("pp"), pp), part(m.group("tp"), tp), tp, pp, dp);
        }
        m = ENGINE.matcher(name);
        if (m.matches() && tp * pp == 1) {
            Integer d = m.group("dp") != null ? Integer.valueOf(m.group("dp")) : dpAbsent;
            return d == null ? null : place(d, 0, 0, tp, pp, dp);
        }
        return null;
    }

    /** The rank a label part names; an absent part is rank 0 only of a group of one. */
    private static Integer part(String written, int size) {
        if (written != null) {
            return Integer.valueOf(written);
        }
        return size == 1 ? 0 : null;
    }

    private static Integer place(Integer d, Integer p, Integer t, int tp, int pp, int dp) {
        if (d == null || p == null || t == null) {
            return null;
        }
        int rank = d * tp * pp + p * tp + t;
        boolean fits = t < tp && p < pp && d < dp;
        return fits || rank >= tp * pp * dp ? rank : null;
    }
}
