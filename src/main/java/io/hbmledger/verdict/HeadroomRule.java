package io.hbmledger.verdict;

import static io.hbmledger.ledger.Units.MIB;
import static io.hbmledger.verdict.Arith.gib;

import io.hbmledger.ledger.Confidence;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How much is left on each device for anything else (capacity - used at the sample), and,
 * when the run has no baseline of its own, what the server likely holds of it, estimated from
 * the reserve an idle card of the same model shows elsewhere.
 */
final class HeadroomRule {

    private HeadroomRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (DeviceFacts d : run.devices()) {
            if (d.capacity() != null && d.used() != null && d.capacity().known() && d.used().known()) {
                out.add(headroom(d, run));
            }
        }
        return out;
    }

    private static Finding headroom(DeviceFacts d, RunFacts run) {
        Figure free = Arith.minus("free", d.capacity().named("capacity"), d.used().named("used"));
        List<Figure> figures = new ArrayList<>(List.of(d.capacity().named("capacity"), d.used().named("used"), free));
        String text = String.format(Locale.ROOT, "%s has %s free (%,d MiB): %s of %s used.", d.device(), gib(free),
                free.bytes() / MIB, gib(d.used()), gib(d.capacity()));
        List<String> advice = new ArrayList<>();
        advice.add("Another service on " + d.device() + " must fit in " + gib(free)
                + " with its own model, runtime context and workspace; else lower the server's share.");
        Optional<DeviceModels.Model> model = DeviceModels.byName(d.model());
        boolean noServerFigures = run.servers().stream().noneMatch(s -> s.has(Fact.UTILIZATION));
        if (model.isPresent() && noServerFigures) {
            DeviceModels.Model m = model.get();
            long usedMib = d.used().bytes() / MIB;
            long lo = usedMib - m.idleHighMib();
            long hi = usedMib - m.idleLowMib();
            Figure held = Figure.bytes("server_share_estimate_low", lo * MIB, Confidence.ESTIMATED,
                    String.format(Locale.ROOT, "%d - %d MiB idle reserve of a %s (%s)", usedMib, m.idleHighMib(),
                            m.name(), m.seenOn()), d.used().sources());
            Figure heldHi = Figure.bytes("server_share_estimate_high", hi * MIB, Confidence.ESTIMATED,
                    String.format(Locale.ROOT, "%d - %d MiB", usedMib, m.idleLowMib()), d.used().sources());
            double uLo = lo / (double) m.torchTotalMib();
            double uHi = hi / (double) m.torchTotalMib();
            Figure util = Figure.value("utilization_estimate", Math.round(uHi * 100) / 100.0, Confidence.ESTIMATED,
                    String.format(Locale.ROOT, "%,d-%,d MiB / %,d MiB torch sees on a %s = %.2f-%.2f", lo, hi,
                            m.torchTotalMib(), m.name(), uLo, uHi), d.used().sources());
            figures.addAll(List.of(held, heldHi, util));
            text += String.format(Locale.ROOT, " Without a baseline of this card, an idle %s holds %,d-%,d MiB"
                    + " elsewhere, so the server holds about %,d-%,d MiB, a utilization around %.2f-%.2f (estimated).",
                    m.name(), m.idleLowMib(), m.idleHighMib(), lo, hi, uLo, uHi);
            advice.add(String.format(Locale.ROOT, "To share the card by design: (server share + other share) x %,d MiB"
                    + " + ~%,d MiB reserve <= %,d MiB.", m.torchTotalMib(), m.idleHighMib(), d.capacity().bytes() / MIB));
        }
        return new Finding(Finding.Kind.HEADROOM, Finding.Severity.INFO, List.of(d.device()), null, text, figures,
                advice);
    }
}
