package io.hbmledger.plan;

import static io.hbmledger.ledger.Units.gib;

import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.verdict.Figure;
import io.hbmledger.weights.Checkpoint;
import io.hbmledger.weights.KvCacheEstimate;
import io.hbmledger.weights.WeightsPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Works out a plan. Pure. vLLM's budget (V0 {@code determine_num_available_blocks}, V1
 * {@code determine_available_memory}, vllm-ascend {@code worker_v1.py}): budget = utilization x
 * total seen; KV budget = budget - (weights + activation peak + non-torch); blocks =
 * floor(KV budget / (block_size x KV bytes per token)), the minimum over the workers, so the
 * heaviest device decides; KV tokens = blocks x block_size; concurrency at max_model_len =
 * blocks / ceil(max_model_len / block_size) (V1 {@code get_max_concurrency_for_kv_cache_config}).
 * V1 refuses to start when free memory is below the budget, so a co-tenant's share must leave it.
 */
public final class Planner {

    private Planner() {
    }

    public static Plan plan(PlanInput in) {
        WeightsPlan w = in.weights();
        PlanSettings s = in.settings();
        List<String> notes = new ArrayList<>();
        KvCacheEstimate kv = w.kv();
        if (kv == null) {
            throw new IllegalArgumentException("the model's config.json does not give the KV cache geometry (layers, KV heads, head_dim)");
        }
        List<NonKvLine> lines = new ArrayList<>();
        lines.add(weightsLine(w));
        EngineDefaults ref = EngineDefaults.forDevice(in.device());
        lines.addAll(new NonKvRules(in.calibration(), ref, s, w.layout().tp(), in.hiddenSize()).lines());
        Figure total = totalSeen(in, notes);
        if (in.calibration() != null && in.calibration().settings().get(io.hbmledger.settings.Setting.SPECULATIVE_CONFIG).isPresent()) {
            notes.add(in.calibration().run() + " served a speculative drafter (speculative_config): its weights and KV layers are"
                    + " not in the model's config.json, so the plan leaves them out and its KV budget and blocks come out higher");
        }
        List<Figure> f = new ArrayList<>();
        f.add(total);
        if (!total.known()) {
            return new Plan(in.model(), deviceName(in), w.layout(), w.layout().devices(), s, ref.engine(),
                    calibratedBy(in), lines, f, List.of(), notes);
        }
        Figure budget = Figure.bytes("budget", (long) Math.floor(s.utilization() * total.bytes()), derived(total),
                fmt("floor(%s x %d B)", ratio(s.utilization()), total.bytes()), total.sources());
        f.add(budget);
        long nonKv = 0;
        Confidence nonKvConf = Confidence.MEASURED;
        StringBuilder parts = new StringBuilder();
        boolean unknown = false;
        for (NonKvLine l : lines) {
            if (!l.inBudget()) {
                continue;
            }
            if (!l.known()) {
                unknown = true;
                continue;
            }
            nonKv += l.bytes();
            nonKvConf = weaker(nonKvConf, l.confidence());
            parts.append(parts.length() == 0 ? "" : " + ").append(l.component()).append(' ').append(l.bytes());
        }
        long blockBytes = kv.bytesPerBlockPerDevice();
        f.add(Figure.bytes("kv_bytes_per_token", kv.bytesPerTokenPerDevice(), Confidence.ESTIMATED,
                kv.formula() + (w.layout().tp() > 1 || w.layout().pp() > 1 ? "; per device under " + w.layout() : ""), List.of()));
        f.add(Figure.bytes("block_bytes", blockBytes, Confidence.ESTIMATED,
                fmt("%d tokens x %d B", s.blockSize(), kv.bytesPerTokenPerDevice()), List.of()));
        if (unknown) {
            f.add(Figure.unknown("kv_budget", "a line counted in the budget is unknown"));
            return new Plan(in.model(), deviceName(in), w.layout(), w.layout().devices(), s, ref.engine(), calibratedBy(in), lines, f,
                    List.of(), notes);
        }
        Figure before = Figure.bytes("needed_before_kv", nonKv, derivedFrom(nonKvConf), parts + " B", List.of());
        f.add(before);
        long kvBytes = budget.bytes() - nonKv;
        Confidence c = weaker(derived(total), derivedFrom(nonKvConf));
        f.add(Figure.bytes("kv_budget", kvBytes, c, fmt("%d B - %d B", budget.bytes(), nonKv), total.sources()));
        long blocks = Math.max(0, kvBytes) / blockBytes;
        f.add(Figure.value("blocks", blocks, c, fmt("floor(max(0, %d B) / %d B)", kvBytes, blockBytes), List.of()));
        f.add(Figure.value("kv_tokens", blocks * s.blockSize(), c, fmt("%d blocks x %d tokens", blocks, s.blockSize()), List.of()));
        Integer len = s.maxModelLen() != null ? s.maxModelLen() : in.maxPosition();
        if (len != null) {
            long perRequest = ceilDiv(len, s.blockSize());
            double conc = blocks / (double) perRequest;
            f.add(Figure.value("max_concurrency", conc, c, fmt("%d blocks / ceil(%d / %d) blocks per request", blocks, len, s.blockSize()),
                    List.of()));
            if (s.maxNumSeqs() != null) {
                f.add(Figure.value("served_concurrency", Math.min(conc, s.maxNumSeqs()), c,
                        fmt("min(%.2f, max_num_seqs %d)", conc, s.maxNumSeqs()), List.of()));
            }
            f.add(Figure.value("smallest_utilization", (nonKv + perRequest * blockBytes) / (double) total.bytes(), c,
                    fmt("(%d B + %d blocks x %d B) / %d B", nonKv, perRequest, blockBytes, total.bytes()), total.sources()));
            if (s.maxNumSeqs() != null) {
                f.add(Figure.value("smallest_utilization_all_seqs",
                        (nonKv + s.maxNumSeqs() * perRequest * blockBytes) / (double) total.bytes(), c,
                        fmt("(%d B + %d seqs x %d blocks x %d B) / %d B", nonKv, s.maxNumSeqs(), perRequest, blockBytes, total.bytes()),
                        total.sources()));
            }
            if (blocks * s.blockSize() < len) {
                notes.add(fmt("does not fit: one %d-token request needs %d blocks, the KV budget holds %d; vLLM V1 refuses to start"
                        + " (\"larger than the available KV cache memory\")", len, perRequest, blocks));
            }
        } else {
            notes.add("max_model_len not given and not known from the model: concurrency and the smallest utilization are not worked out");
        }
        long largest = blocks * s.blockSize();
        String capped = "";
        if (in.maxPosition() != null && largest > in.maxPosition()) {
            largest = in.maxPosition();
            capped = fmt(", capped at max_position_embeddings %d (vLLM refuses a longer max_model_len without rope scaling)",
                    in.maxPosition());
        }
        f.add(Figure.value("largest_max_model_len", largest, c,
                fmt("%d blocks x %d tokens (one request may use the whole KV cache)%s", blocks, s.blockSize(), capped), List.of()));
        if (len != null && in.maxPosition() != null && len > in.maxPosition()) {
            notes.add(fmt("max_model_len %d exceeds the model's max_position_embeddings %d: vLLM refuses it unless rope scaling"
                    + " extends the context (or VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)", len, in.maxPosition()));
        }
        coTenant(s, total, budget, f, notes);
        if (kvBytes < 0) {
            notes.add("the KV budget is negative: the lines before the KV cache exceed utilization x total (" + gib(nonKv) + " > "
                    + gib(budget.bytes()) + ")");
        }
        return new Plan(in.model(), deviceName(in), w.layout(), w.layout().devices(), s, ref.engine(), calibratedBy(in), lines, f,
                Reproduction.check(in.calibration(), lines.get(0).bytes(), kvBytes, blocks), notes);
    }

    private static void coTenant(PlanSettings s, Figure total, Figure budget, List<Figure> f, List<String> notes) {
        if (s.coTenantBytes() <= 0) {
            return;
        }
        long free = total.bytes() - s.coTenantBytes();
        f.add(Figure.bytes("free_at_start", free, Confidence.ESTIMATED, fmt("%d B - co-tenant %d B", total.bytes(), s.coTenantBytes()),
                total.sources()));
        double largest = free / (double) total.bytes();
        f.add(Figure.value("largest_utilization_with_co_tenant", largest, Confidence.ESTIMATED,
                fmt("%d B free / %d B", free, total.bytes()), total.sources()));
        if (budget.bytes() > free) {
            notes.add(fmt("refused at start with the co-tenant: vLLM V1 needs utilization x total = %s free, %s is"
                    + " (\"Free memory on device ... is less than desired GPU memory utilization\"); at most %s fits",
                    gib(budget.bytes()), gib(free), ratio(largest)));
        }
    }

    private static NonKvLine weightsLine(WeightsPlan w) {
        // one device holding the whole checkpoint: the header bytes are the device's, no sharding rule involved
        boolean exact = w.source() == Checkpoint.Source.HEADERS && w.perDeviceBytes() == w.checkpointBytes();
        String measured = w.source() == Checkpoint.Source.HEADERS
                ? "checkpoint " + gib(w.checkpointBytes()) + " from safetensors headers (exact)"
                : "checkpoint " + gib(w.checkpointBytes()) + " estimated from config.json shapes";
        return new NonKvLine(Component.WEIGHTS, w.perDeviceBytes(), exact ? Confidence.EXACT : Confidence.ESTIMATED, true, measured,
                exact ? "whole on the device" : "vLLM's sharding rules under " + w.layout() + " (hbm-ledger weights), served as " + w.servedDtype(),
                w.perDeviceBytes() + " B per device", List.of());
    }

    private static Figure totalSeen(PlanInput in, List<String> notes) {
        if (in.capacityBytes() != null) {
            notes.add("--capacity " + in.capacityBytes() + " B is taken as the total the framework sees: the runtime's reserve"
                    + " (3.04 GiB on a 64 GB 910B2) is not known for it, so the budget may be overstated");
            return Figure.bytes("total_seen", in.capacityBytes(), Confidence.ESTIMATED, "--capacity", List.of());
        }
        Calibration cal = in.calibration();
        DeviceSpec d = in.device();
        if (d != null && d.torchTotalBytes() != null) {
            return Figure.bytes("total_seen", d.torchTotalBytes(), Confidence.ESTIMATED, d.name() + ": " + d.torchTotalSource(), List.of());
        }
        if (d == null && cal != null && cal.totalSeen() != null) {
            return cal.totalSeen().named("total_seen");
        }
        if (d != null) {
            notes.add(d.name() + ": the total the framework sees is " + d.torchTotalSource() + "; the capacity " + gib(d.capacityBytes())
                    + " is used, which overstates the budget by the driver's reserve");
            return Figure.bytes("total_seen", d.capacityBytes(), Confidence.ESTIMATED, d.name() + " capacity: " + d.capacitySource(),
                    List.of());
        }
        return Figure.unknown("total_seen", "no --device, --capacity or calibration run with vLLM's total");
    }

    private static String deviceName(PlanInput in) {
        return in.capacityBytes() != null ? "--capacity " + gib(in.capacityBytes()) : in.device() != null ? in.device().name()
                : in.calibration() != null ? "the device of " + in.calibration().run() : "unknown";
    }

    private static String calibratedBy(PlanInput in) {
        return in.calibration() == null ? null : in.calibration().run();
    }

    /** A figure worked out from others is at most inferred; estimated inputs keep it estimated. */
    private static Confidence derived(Figure... in) {
        Confidence c = Confidence.MEASURED;
        for (Figure x : in) {
            c = weaker(c, x.confidence());
        }
        return derivedFrom(c);
    }

    private static Confidence derivedFrom(Confidence c) {
        return c.ordinal() < Confidence.INFERRED.ordinal() ? Confidence.INFERRED : c;
    }

    static Confidence weaker(Confidence a, Confidence b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    static String ratio(double u) {
        return String.format(Locale.ROOT, "%.4f", u).replaceAll("0+$", "").replaceAll("\\.$", ".0");
    }

    private static String fmt(String f, Object... args) {
        return String.format(Locale.ROOT, f, args);
    }
}
