package io.hbmledger.plan;

import static io.hbmledger.ledger.Units.gib;

import io.hbmledger.verdict.Figure;
import java.io.PrintWriter;
import java.util.Locale;

/** A plan for the terminal: the lines before the KV cache, then the KV figures, each with its arithmetic. */
public final class PlanText {

    private PlanText() {
    }

    public static void write(Plan p, Sweep sweep, PrintWriter out) {
        out.println("plan: " + p.model() + " on " + p.device() + ", " + p.layout() + " (" + p.devices() + " device"
                + (p.devices() == 1 ? "" : "s") + "; figures for the heaviest)");
        PlanSettings s = p.settings();
        out.println(String.format(Locale.ROOT, "settings: gpu_memory_utilization %s, max_model_len %s, max_num_seqs %s,"
                        + " max_num_batched_tokens %s, kv_cache_dtype %s, enforce_eager %s, block_size %d%s",
                Planner.ratio(s.utilization()), orUnknown(s.maxModelLen()), orUnknown(s.maxNumSeqs()), orUnknown(s.maxNumBatchedTokens()),
                s.kvCacheDtype(), s.enforceEager() == null ? "not given" : s.enforceEager(), s.blockSize(),
                s.coTenantBytes() > 0 ? ", co-tenant " + gib(s.coTenantBytes()) : ""));
        out.println("non-KV memory: " + (p.calibratedBy() == null ? "defaults for " + p.engine() + " (estimated)"
                : "calibrated by " + p.calibratedBy()));
        out.println();
        for (NonKvLine l : p.lines()) {
            out.println(String.format(Locale.ROOT, "  %-30s %12s  %-9s %s", l.component() + (l.inBudget() ? "" : " (outside budget)"),
                    l.known() ? gib(l.bytes()) : "unknown", l.confidence().jsonName(), l.measured()));
            if (!l.scaled().equals("unchanged") && !l.scaled().equals("none")) {
                out.println("  " + " ".repeat(55) + "scaled: " + l.scaled());
            }
            if (l.arithmetic() != null) {
                out.println("  " + " ".repeat(55) + "= " + l.arithmetic());
            }
            l.sources().forEach(src -> out.println("  " + " ".repeat(55) + "<- " + src.shortForm()));
        }
        out.println();
        figures(p, out);
        if (!p.check().isEmpty()) {
            out.println();
            out.println("the calibration run's own figures:");
            for (Figure f : p.check()) {
                out.println(String.format(Locale.ROOT, "  %-30s %14s  %s", f.name(), show(f), f.arithmetic() == null
                        ? f.sources().stream().findFirst().map(x -> "<- " + x.shortForm()).orElse("") : "= " + f.arithmetic()));
            }
        }
        if (!p.notes().isEmpty()) {
            out.println();
            out.println("notes:");
            p.notes().forEach(n -> out.println("  - " + n));
        }
        if (sweep != null) {
            out.println();
            out.println(String.format(Locale.ROOT, "sweep over %s:", sweep.setting()));
            out.println(String.format(Locale.ROOT, "  %-14s %12s %12s %10s %12s %10s", sweep.setting().length() > 14 ? "value" : sweep.setting(),
                    "KV budget", "KV tokens", "blocks", "concurrency", "fits"));
            for (Sweep.Row r : sweep.rows()) {
                Plan q = r.plan();
                out.println(String.format(Locale.ROOT, "  %-14s %12s %12s %10s %12s %10s", r.value(), shown(q, "kv_budget"),
                        shown(q, "kv_tokens"), shown(q, "blocks"), shown(q, "max_concurrency"), fits(q)));
            }
        }
        out.flush();
    }

    private static void figures(Plan p, PrintWriter out) {
        for (Figure f : p.figures()) {
            out.println(String.format(Locale.ROOT, "  %-30s %14s  %-9s %s", f.name(), show(f), f.confidence().jsonName(),
                    f.arithmetic() == null ? "" : (f.known() ? "= " : "") + f.arithmetic()));
        }
    }

    /**
     * "yes", "no", or "unknown" when the KV budget is not known. With a max_model_len, given or
     * the model's max_position_embeddings, one request of it must fit: a row said "yes" at 0.91
     * concurrency while the plan's note said "does not fit" (fresh-user finding).
     */
    static String fits(Plan q) {
        Figure tokens = q.figure("kv_tokens").orElse(null);
        if (tokens == null || !tokens.known()) {
            return "unknown";
        }
        Figure concurrency = q.figure("max_concurrency").orElse(null);
        if (concurrency != null && concurrency.known()) {
            return concurrency.value() >= 1 ? "yes" : "no";
        }
        Integer len = q.settings().maxModelLen();
        return len == null ? (tokens.value() > 0 ? "yes" : "no") : tokens.value() >= len ? "yes" : "no";
    }

    private static String shown(Plan q, String name) {
        return q.figure(name).map(PlanText::show).orElse("unknown");
    }

    static String show(Figure f) {
        if (!f.known()) {
            return "unknown";
        }
        if (f.bytes() != null) {
            return f.name().endsWith("per_token") || f.name().equals("block_bytes") ? String.format(Locale.ROOT, "%,d B", f.bytes()) : gib(f.bytes());
        }
        double v = f.value();
        return v == Math.rint(v) && !f.name().contains("utilization") && !f.name().contains("concurrency")
                ? String.format(Locale.ROOT, "%,d", (long) v) : String.format(Locale.ROOT, f.name().contains("utilization") ? "%.4f" : "%.2f", v);
    }

    private static String orUnknown(Integer v) {
        return v == null ? "not given" : String.valueOf(v);
    }
}
