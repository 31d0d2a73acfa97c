package io.hbmledger.diff;

import static io.hbmledger.ledger.Units.gibOrMib;

import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.settings.Setting;
import io.hbmledger.settings.SettingValue;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Works out a diff. Pure. Devices pair by their physical name in the ledger; components by
 * name. A delta of two figures of the same confidence keeps it (two measured numbers give a
 * measured delta); mixed confidences give the weaker one and say so; an unknown side gives an
 * unknown delta, never 0. Changed settings explain the components they move: utilization the KV
 * cache (by the change x the total the engine saw), enforce_eager the graph pool, dtype /
 * quantization / TP the weights and the KV cache, the engine version and max_num_batched_tokens
 * the activation peak and non-torch memory.
 */
public final class Differ {

    /** Rounding to whole KV blocks and vLLM's two-decimal GiB figures: what a predicted delta may miss by. */
    private static final double TOLERANCE = 0.01;

    private Differ() {
    }

    public static Diff diff(Side a, Side b) {
        List<Diff.Change> changes = changes(a, b);
        List<String> notes = new ArrayList<>();
        List<Diff.DevicePair> pairs = new ArrayList<>();
        List<String> onlyA = new ArrayList<>();
        List<String> onlyB = new ArrayList<>();
        for (Side.Device da : a.devices()) {
            Optional<Side.Device> db = b.devices().stream().filter(x -> x.key().equals(da.key())).findFirst();
            if (db.isEmpty()) {
                onlyA.add(da.key());
                continue;
            }
            pairs.add(new Diff.DevicePair(da.key(), da.deviceId(), db.get().deviceId(), rows(a, b, da, db.get(), changes)));
        }
        for (Side.Device db : b.devices()) {
            if (a.devices().stream().noneMatch(x -> x.key().equals(db.key()))) {
                onlyB.add(db.key());
            }
        }
        if (!onlyA.isEmpty() || !onlyB.isEmpty()) {
            notes.add("the device sets differ: only in " + a.name() + ": " + (onlyA.isEmpty() ? "none" : String.join(", ", onlyA))
                    + "; only in " + b.name() + ": " + (onlyB.isEmpty() ? "none" : String.join(", ", onlyB))
                    + "; devices pair by physical id, so these are left out");
        }
        if (changes.isEmpty()) {
            notes.add("no setting differs in what the two runs state (run.json, vLLM's config and argument lines)");
        }
        return new Diff(a.name(), b.name(), changes, pairs, onlyA, onlyB, notes);
    }

    private static List<Diff.Change> changes(Side a, Side b) {
        List<Diff.Change> out = new ArrayList<>();
        for (Setting s : Setting.values()) {
            Optional<SettingValue> va = a.settings().get(s);
            Optional<SettingValue> vb = b.settings().get(s);
            if (va.isEmpty() && vb.isEmpty()) {
                continue;
            }
            String x = va.map(SettingValue::value).orElse(null);
            String y = vb.map(SettingValue::value).orElse(null);
            if (!same(x, y)) {
                out.add(new Diff.Change(s.key(), x, y, va.map(v -> v.source().shortForm()).orElse(null),
                        vb.map(v -> v.source().shortForm()).orElse(null)));
            }
        }
        return out;
    }

    private static boolean same(String x, String y) {
        if (x == null || y == null) {
            return Objects.equals(x, y);
        }
        try {
            return Double.parseDouble(x) == Double.parseDouble(y);
        } catch (NumberFormatException e) {
            return x.equalsIgnoreCase(y);
        }
    }

    private static List<Diff.Row> rows(Side a, Side b, Side.Device da, Side.Device db, List<Diff.Change> changes) {
        Set<String> components = new LinkedHashSet<>(da.amounts().keySet());
        components.addAll(db.amounts().keySet());
        List<Diff.Row> out = new ArrayList<>();
        for (String c : components) {
            Side.Amount x = da.amounts().getOrDefault(c, new Side.Amount(null, "unknown", null));
            Side.Amount y = db.amounts().getOrDefault(c, new Side.Amount(null, "unknown", null));
            Long delta = x.bytes() == null || y.bytes() == null ? null : y.bytes() - x.bytes();
            boolean mixed = !x.confidence().equals(y.confidence());
            String conf = delta == null ? "unknown" : weaker(x.confidence(), y.confidence());
            Long expected = c.equals(Component.GRAPH_POOL) ? graphExpected(x, y, changes) : expected(c, a, b, changes);
            out.add(new Diff.Row(c, x.bytes(), x.confidence(), y.bytes(), y.confidence(), delta, conf, mixed && delta != null, expected,
                    explain(c, delta, expected, a, changes)));
        }
        return aggregates(out);
    }

    private static String weaker(String x, String y) {
        Confidence cx = parse(x);
        Confidence cy = parse(y);
        return (cx.ordinal() >= cy.ordinal() ? cx : cy).jsonName();
    }

    private static Confidence parse(String c) {
        try {
            return Confidence.valueOf(c.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return Confidence.UNKNOWN;
        }
    }

    private static Optional<Diff.Change> change(List<Diff.Change> changes, Setting s) {
        return changes.stream().filter(c -> c.setting().equals(s.key())).findFirst();
    }

    /** The delta the settings predict: a utilization change moves the KV cache by the change x total. */
    private static Long expected(String component, Side a, Side b, List<Diff.Change> changes) {
        Optional<Diff.Change> u = change(changes, Setting.GPU_MEMORY_UTILIZATION);
        if (component.equals(Component.KV_CACHE) && u.isPresent() && u.get().a() != null && u.get().b() != null) {
            Long total = a.totalSeen() != null ? a.totalSeen() : b.totalSeen();
            if (total != null && (b.totalSeen() == null || b.totalSeen().equals(total))) {
                return Math.round((Double.parseDouble(u.get().b()) - Double.parseDouble(u.get().a())) * total);
            }
        }
        return null;
    }

    /**
     * enforce_eager turned on: the first run's graph pool goes (minus A); turned off: the second
     * run's pool appears (plus B). Null when the side that holds graphs has no graph figure.
     */
    private static Long graphExpected(Side.Amount x, Side.Amount y, List<Diff.Change> changes) {
        Optional<Diff.Change> e = change(changes, Setting.ENFORCE_EAGER);
        if (e.isEmpty()) {
            return null;
        }
        if ("true".equalsIgnoreCase(e.get().b()) && x.bytes() != null) {
            return -x.bytes();
        }
        return "true".equalsIgnoreCase(e.get().a()) && y.bytes() != null ? y.bytes() : null;
    }

    /** Rows that add up other rows: their delta should be the sum of the component deltas. */
    private static final Set<String> AGGREGATES = Set.of("used", Component.SERVER_PROCESSES, Component.TORCH_ALLOCATED);

    /**
     * An aggregate's delta against the sum of the explained component deltas (observed, or
     * expected where a side is unknown).
     */
    private static List<Diff.Row> aggregates(List<Diff.Row> rows) {
        long sum = 0;
        List<String> parts = new ArrayList<>();
        for (Diff.Row r : rows) {
            if (AGGREGATES.contains(r.component()) || r.component().equals("capacity") || r.explanation() == null
                    || r.explanation().startsWith("not explained")) {
                continue;
            }
            Long d = r.delta() != null ? r.delta() : r.expected();
            if (d != null && d != 0) {
                sum += d;
                parts.add(r.component() + " " + gibOrMib(d) + (r.delta() == null ? " (expected)" : ""));
            }
        }
        List<Diff.Row> out = new ArrayList<>();
        for (Diff.Row r : rows) {
            if (!AGGREGATES.contains(r.component()) || r.delta() == null || r.delta() == 0 || parts.isEmpty()) {
                out.add(r);
                continue;
            }
            long miss = r.delta() - sum;
            boolean within = Math.abs(miss) <= Math.max(TOLERANCE * Math.abs(sum), 1L << 20);
            out.add(new Diff.Row(r.component(), r.a(), r.confidenceA(), r.b(), r.confidenceB(), r.delta(), r.deltaConfidence(), r.mixed(),
                    sum, "the component changes: " + String.join(" + ", parts) + " = " + gibOrMib(sum) + "; "
                    + (within ? "explained within 1%, the rest is " : "not fully explained, the rest is ") + gibOrMib(miss)));
        }
        return out;
    }

    private static final Map<String, List<Setting>> MOVERS = Map.of(
            Component.KV_CACHE, List.of(Setting.GPU_MEMORY_UTILIZATION, Setting.KV_CACHE_DTYPE, Setting.TENSOR_PARALLEL_SIZE,
                    Setting.PIPELINE_PARALLEL_SIZE, Setting.DTYPE, Setting.ENGINE_VERSION, Setting.MAX_NUM_BATCHED_TOKENS),
            Component.GRAPH_POOL, List.of(Setting.ENFORCE_EAGER, Setting.MAX_NUM_SEQS, Setting.ENGINE_VERSION),
            Component.WEIGHTS, List.of(Setting.DTYPE, Setting.QUANTIZATION, Setting.TENSOR_PARALLEL_SIZE, Setting.PIPELINE_PARALLEL_SIZE,
                    Setting.MODEL, Setting.SPECULATIVE_CONFIG),
            Component.ACTIVATION_PEAK, List.of(Setting.MAX_NUM_BATCHED_TOKENS, Setting.MAX_MODEL_LEN, Setting.ENGINE_VERSION),
            Component.PROFILE_PEAK_REST, List.of(Setting.MAX_NUM_BATCHED_TOKENS, Setting.MAX_MODEL_LEN, Setting.ENGINE_VERSION,
                    Setting.TENSOR_PARALLEL_SIZE),
            Component.NON_TORCH, List.of(Setting.TENSOR_PARALLEL_SIZE, Setting.ENGINE_VERSION),
            Component.HCCL, List.of(Setting.TENSOR_PARALLEL_SIZE, Setting.DATA_PARALLEL_SIZE));

    private static String explain(String component, Long delta, Long expected, Side a, List<Diff.Change> changes) {
        if (component.equals(Component.GRAPH_POOL) && expected != null) {
            Diff.Change e = change(changes, Setting.ENFORCE_EAGER).orElseThrow();
            return "enforce_eager " + e.a() + " -> " + e.b() + ": " + (expected < 0 ? "no graphs are captured in B, A's pool goes"
                    : "graphs are captured in B, its pool appears") + " (expected " + gibOrMib(expected) + ")"
                    + (delta == null ? "; the ledger has no graph figure for the eager run, so the observed delta is unknown" : "");
        }
        if (delta == null || delta == 0) {
            return null;
        }
        if (expected != null) {
            long miss = delta - expected;
            boolean within = Math.abs(miss) <= Math.max(TOLERANCE * Math.abs(expected), 1L << 20);
            Diff.Change u = change(changes, Setting.GPU_MEMORY_UTILIZATION).orElseThrow();
            return String.format(Locale.ROOT, "gpu_memory_utilization %s -> %s: expected (%s - %s) x total %s = %s; observed %s, %s %s",
                    u.a(), u.b(), u.b(), u.a(), gibOrMib(a.totalSeen() != null ? a.totalSeen() : 0), gibOrMib(expected), gibOrMib(delta),
                    within ? "explained within 1% (whole KV blocks, rounding): the rest is" : "not explained by the utilization alone: the rest is",
                    gibOrMib(miss));
        }
        if (component.equals(Component.GRAPH_POOL)) {
            Optional<Diff.Change> e = change(changes, Setting.ENFORCE_EAGER);
            if (e.isPresent()) {
                return "enforce_eager " + e.get().a() + " -> " + e.get().b() + (delta > 0 ? ": graphs are captured in the second run"
                        : ": no graphs are captured in the second run") + ", the graph pool " + (delta > 0 ? "appears" : "goes");
            }
        }
        List<String> movers = new ArrayList<>();
        for (Setting s : MOVERS.getOrDefault(component, List.of())) {
            change(changes, s).ifPresent(c -> movers.add(c.setting() + " " + c.a() + " -> " + c.b()));
        }
        if (!movers.isEmpty()) {
            return "moved by " + String.join(", ", movers) + " (not predicted in bytes)";
        }
        if (component.equals("capacity") || component.equals("used") || component.equals(Component.RESIDUAL)) {
            return null;
        }
        return "not explained by a setting the evidence shows";
    }
}
