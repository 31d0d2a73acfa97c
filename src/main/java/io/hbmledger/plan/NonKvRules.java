package io.hbmledger.plan;

import static io.hbmledger.ledger.Units.gib;

import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.settings.Setting;
import io.hbmledger.verdict.Figure;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The non-KV memory of a plan, from a calibration run's figures or from the engine's reference
 * ({@link EngineDefaults}), scaled by these rules (docs/readme-plan.md):
 * <ol>
 * <li>Activation peak: linear in the tokens of vLLM's profile run (max_num_batched_tokens) and in
 *     the model's hidden_size; unchanged by TP (vLLM PR 10511: 1.26 GiB at TP 1 and at TP 2).</li>
 * <li>Non-torch memory: unchanged while TP stays 1 or stays above 1; going from TP 1 to more adds
 *     the communication buffers (HCCL / NCCL), going to TP 1 removes them.</li>
 * <li>Graph pool: captured after the KV cache is sized, so outside the budget; none with
 *     enforce_eager; otherwise the calibration run's figure when it captured graphs, else unknown.</li>
 * </ol>
 * A figure taken unchanged keeps its confidence; a scaled one is {@code estimated}.
 */
final class NonKvRules {

    private final Calibration cal;
    private final EngineDefaults ref;
    private final PlanSettings plan;
    private final int planTp;
    private final Integer planHidden;

    NonKvRules(Calibration cal, EngineDefaults ref, PlanSettings plan, int planTp, Integer planHidden) {
        this.cal = cal;
        this.ref = ref;
        this.plan = plan;
        this.planTp = planTp;
        this.planHidden = planHidden;
    }

    List<NonKvLine> lines() {
        List<NonKvLine> out = new ArrayList<>();
        if (cal != null && cal.activation() != null && cal.nonTorch() != null) {
            out.add(activation(cal.activation(), Component.ACTIVATION_PEAK));
            out.add(comm(cal.nonTorch(), Component.NON_TORCH));
        } else if (cal != null && cal.profileRest() != null) {
            out.add(comm(activation(cal.profileRest(), Component.PROFILE_PEAK_REST), Component.PROFILE_PEAK_REST));
        } else if (cal != null) {
            out.add(new NonKvLine(Component.PROFILE_PEAK_REST, null, Confidence.UNKNOWN, true,
                    cal.run() + " shows neither vLLM's activation peak and non-torch figures nor its KV budget", "none", null, List.of()));
        } else {
            Figure a = Figure.bytes("reference", ref.activationOrRest(), Confidence.ESTIMATED, null, List.of());
            String comp = ref.lumped() ? Component.PROFILE_PEAK_REST : Component.ACTIVATION_PEAK;
            NonKvLine act = activation(a, comp);
            if (ref.lumped()) {
                out.add(comm(act, comp));
            } else {
                out.add(act);
                out.add(comm(Figure.bytes("reference", ref.nonTorch(), Confidence.ESTIMATED, null, List.of()), Component.NON_TORCH));
            }
        }
        out.add(graphPool());
        return out;
    }

    private Integer refTokens() {
        return cal == null ? Integer.valueOf(ref.profileTokens()) : cal.settings().integer(Setting.MAX_NUM_BATCHED_TOKENS);
    }

    private int refTp() {
        if (cal == null) {
            return 1;
        }
        Integer tp = cal.settings().integer(Setting.TENSOR_PARALLEL_SIZE);
        return tp == null ? 1 : tp;
    }

    private Integer refHidden() {
        return cal == null ? Integer.valueOf(ref.hiddenSize()) : cal.hiddenSize();
    }

    private String where() {
        return cal == null ? "default for " + ref.engine() + ": " + ref.source() : "measured in " + cal.run();
    }

    private NonKvLine activation(Figure base, String component) {
        double factor = 1.0;
        List<String> rules = new ArrayList<>();
        StringBuilder arith = new StringBuilder(base.bytes() + " B");
        Integer rt = refTokens();
        Integer pt = plan.maxNumBatchedTokens();
        if (pt != null && rt != null && !pt.equals(rt)) {
            factor *= pt / (double) rt;
            arith.append(" x ").append(pt).append(" / ").append(rt).append(" profile tokens");
            rules.add("linear in max_num_batched_tokens (" + rt + " -> " + pt + ")");
        } else if (pt == null || rt == null) {
            rules.add("max_num_batched_tokens " + (pt == null ? "not given for the plan" : "not shown by the run")
                    + ": taken as the reference's");
        }
        Integer rh = refHidden();
        if (planHidden != null && rh != null && !planHidden.equals(rh)) {
            factor *= planHidden / (double) rh;
            arith.append(" x hidden_size ").append(planHidden).append(" / ").append(rh);
            rules.add("linear in hidden_size (" + rh + " -> " + planHidden + ")");
        }
        long bytes = Math.round(base.bytes() * factor);
        boolean changed = factor != 1.0;
        Confidence c = cal == null || changed ? Confidence.ESTIMATED : base.confidence();
        String measured = (component.equals(Component.PROFILE_PEAK_REST) ? "activation peak and non-torch " : "activation peak ")
                + gib(base.bytes()) + " at " + (rt == null ? "unknown" : rt) + " profile tokens, TP " + refTp()
                + (rh == null ? "" : ", hidden_size " + rh) + ", " + where();
        return new NonKvLine(component, bytes, c, true, measured, rules.isEmpty() ? "unchanged" : String.join("; ", rules),
                changed ? arith + " = " + bytes + " B" : null, base.sources());
    }

    private NonKvLine comm(Figure base, String component) {
        return comm(new NonKvLine(component, base.bytes(), cal == null ? Confidence.ESTIMATED : base.confidence(), true,
                "non-torch " + gib(base.bytes()) + " at TP " + refTp() + ", " + where(), "unchanged", null, base.sources()), component);
    }

    /** Rule 2 applied to a line already holding the run's figure. */
    private NonKvLine comm(NonKvLine in, String component) {
        int rt = refTp();
        if ((rt > 1) == (planTp > 1)) {
            return in;
        }
        boolean add = planTp > 1;
        long c = ref.commBytes();
        String commSrc = cal != null && cal.hccl() != null && !add ? "measured HCCL " + gib(cal.hccl().bytes()) + " in " + cal.run()
                : ref.commSource();
        if (cal != null && cal.hccl() != null && !add) {
            c = cal.hccl().bytes();
        }
        long bytes = in.bytes() + (add ? c : -c);
        String rule = (in.scaled().equals("unchanged") ? "" : in.scaled() + "; ") + "TP " + rt + " -> " + planTp
                + (add ? ": communication buffers added (" : ": communication buffers removed (") + commSrc + ")";
        String arith = (in.arithmetic() == null ? in.bytes() + " B" : "(" + in.arithmetic() + ")") + (add ? " + " : " - ") + c + " B = " + bytes + " B";
        return new NonKvLine(component, bytes, Confidence.ESTIMATED, true, in.measured(), rule, arith, in.sources());
    }

    private NonKvLine graphPool() {
        if (Boolean.TRUE.equals(plan.enforceEager())) {
            return new NonKvLine(Component.GRAPH_POOL, 0L, Confidence.ESTIMATED, false, "enforce_eager: no graph is captured",
                    "none", null, List.of());
        }
        Boolean calEager = cal == null ? null : cal.settings().bool(Setting.ENFORCE_EAGER);
        if (cal != null && cal.graphPool() != null && !Boolean.TRUE.equals(calEager)) {
            Figure g = cal.graphPool();
            return new NonKvLine(Component.GRAPH_POOL, g.bytes(), g.confidence(), false,
                    "graph pool " + gib(g.bytes()) + " measured in " + cal.run() + ", taken after the KV cache (outside the budget)",
                    "unchanged (depends on the capture sizes, i.e. max_num_seqs; not scaled)", null, g.sources());
        }
        return new NonKvLine(Component.GRAPH_POOL, null, Confidence.UNKNOWN, false,
                (cal == null ? "no calibration run" : cal.run() + (Boolean.TRUE.equals(calEager) ? " ran eager" : " shows no graph memory"))
                        + String.format(Locale.ROOT, ": the graph pool (taken after the KV cache, outside the budget) is unknown;"
                        + " pass --enforce-eager to plan without graphs, or --calibrate a run that captured them"),
                "none", null, List.of());
    }
}
