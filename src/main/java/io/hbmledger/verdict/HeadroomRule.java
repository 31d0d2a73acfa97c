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

    /** Above this many devices one finding sums them up, so the answer stays on one screen. */
    private static final int ONE_BY_ONE = 2;

    static List<Finding> apply(RunFacts run) {
        List<DeviceFacts> sampled = run.devices().stream().filter(d -> d.capacity() != null && d.used() != null
                && d.capacity().known() && d.used().known()).toList();
        if (sampled.size() > ONE_BY_ONE) {
            return List.of(together(sampled, run));
        }
        List<Finding> out = new ArrayList<>();
        for (DeviceFacts d : sampled) {
            out.add(headroom(d, run));
        }
        return out;
    }

    private static Finding together(List<DeviceFacts> devices, RunFacts run) {
        List<Figure> figures = new ArrayList<>();
        DeviceFacts least = null;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (DeviceFacts d : devices) {
            Figure free = Arith.minus("free_" + d.device(), d.capacity(), d.used());
            figures.add(free);
            if (free.bytes() < min) {
                min = free.bytes();
                least = d;
            }
            max = Math.max(max, free.bytes());
        }
        String range = min == max ? io.hbmledger.ledger.Units.gib(min)
                : io.hbmledger.ledger.Units.gibNumber(min) + "-" + io.hbmledger.ledger.Units.gib(max);
        String text = String.format(Locale.ROOT, "%d devices have %s free each (capacity - used at the sample); the"
                + " least on %s: %s of %s used.", devices.size(), range, least.device(), gib(least.used()),
                gib(least.capacity()));
        figures.add(0, Arith.minus("free", least.capacity().named("capacity"), least.used().named("used")));
        List<String> devs = devices.stream().map(DeviceFacts::device).toList();
        return new Finding(Finding.Kind.HEADROOM, Finding.Severity.INFO, devs, null,
                text + OtherServicesSaid.containers(run, devs) + OtherServicesSaid.named(run), figures,
                List.of(OtherServicesSaid.who(run, "one of these devices") + " must fit in its free memory with its own model,"
                        + " runtime context and workspace; else lower the server's share."));
    }

    private static Finding headroom(DeviceFacts d, RunFacts run) {
        Figure free = Arith.minus("free", d.capacity().named("capacity"), d.used().named("used"));
        if (free.bytes() < 0) {
            return new Finding(Finding.Kind.HEADROOM, Finding.Severity.WARN, List.of(d.device()), null,
                    d.device() + " shows " + gib(d.used()) + " used of " + gib(d.capacity())
                            + ": used above capacity, so the sample is inconsistent (a cut or edited table, or"
                            + " two rows joined); nothing is said of its headroom.",
                    List.of(d.capacity().named("capacity"), d.used().named("used")),
                    List.of("Paste the table again as npu-smi / nvidia-smi printed it."));
        }
        List<Figure> figures = new ArrayList<>(List.of(d.capacity().named("capacity"), d.used().named("used"), free));
        String text = String.format(Locale.ROOT, "%s has %s free (%,d MiB): %s of %s used.", d.device(), gib(free),
                free.bytes() / MIB, gib(d.used()), gib(d.capacity()));
        List<String> advice = new ArrayList<>();
        advice.add(OtherServicesSaid.who(run, d.device()) + " must fit in " + gib(free)
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
            text += String.format(Locale.ROOT, " Without a baseline of this card, an idle %s (told by its capacity) holds %,d-%,d MiB"
                    + " elsewhere, so the server holds about %,d-%,d MiB, a utilization around %.2f-%.2f (estimated).",
                    m.name(), m.idleLowMib(), m.idleHighMib(), lo, hi, uLo, uHi);
            advice.add(String.format(Locale.ROOT, "To share the card by design: (server share + other share) x %,d MiB"
                    + " + ~%,d MiB reserve <= %,d MiB.", m.torchTotalMib(), m.idleHighMib(), d.capacity().bytes() / MIB));
        }
        return new Finding(Finding.Kind.HEADROOM, Finding.Severity.INFO, List.of(d.device()), null,
                text + OtherServicesSaid.containers(run, List.of(d.device())) + OtherServicesSaid.named(run),
                figures, advice);
    }
}
