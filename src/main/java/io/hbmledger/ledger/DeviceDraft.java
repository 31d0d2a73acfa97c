package io.hbmledger.ledger;

import io.hbmledger.ledger.DeviceLedger.Amount;
import io.hbmledger.ledger.owner.ResidualRule;
import io.hbmledger.ledger.owner.UsedRule;
import io.hbmledger.ledger.smi.SmiSampleRule;
import io.hbmledger.ledger.vllm.LedgerMomentRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One device's ledger while the rules fill it in; {@link #build()} freezes it. Each component
 * has one owner rule that decides its line once ({@link #decide}); another rule may only take a
 * known line out of the sum through {@link #refine}, which records who did and why.
 *
 * <p>The device's own figures each have one owner rule, which decides them once (a second
 * decision throws: it would be a second rule writing a field it does not own):
 * moment: {@link LedgerMomentRule}; device key, capacity, the npu-smi sample and its reading of
 * used: {@link SmiSampleRule}; used: {@link UsedRule} (npu-smi first, msprof second); residual:
 * {@link ResidualRule}. Until decided, each reads as its default (ready, unknown).
 */
public final class DeviceDraft {

    private final int logicalDevice;
    private final List<Integer> ranks;
    private final Decided<String> device;
    private final Decided<String> moment = new Decided<>("moment", "ready");
    private final Decided<Amount> capacity = new Decided<>("capacity", Amount.unknown("no npu-smi sample of this device"));
    private final Decided<Amount> smiUsed = new Decided<>("npu-smi used",
            Amount.unknown("no npu-smi sample of this device at this moment"));
    private final Decided<Amount> used = new Decided<>("used", Amount.unknown("no npu-smi sample of this device at this moment"));
    private final Decided<SmiSample> sample = new Decided<>("sample", null);
    private final Decided<Residual> residual = new Decided<>("residual", new Residual(null, null));
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final List<Check> checks = new ArrayList<>();
    private final List<Refinement> refinements = new ArrayList<>();

    /**
     * The npu-smi (or nvidia-smi) file the capacity and used figures came from.
     *
     * @param moment that sample's moment name, null when the run does not state it
     */
    public record SmiSample(String file, String moment) {
    }

    /** Used minus the counted entries, null when used is unknown, and what it can hold. */
    public record Residual(Long bytes, String note) {
    }

    public DeviceDraft(int logicalDevice, List<Integer> ranks) {
        this.logicalDevice = logicalDevice;
        this.ranks = List.copyOf(ranks);
        this.device = new Decided<>("device key", Accelerator.deviceKey(Accelerator.Kind.UNKNOWN, logicalDevice));
    }

    /** A figure its owner rule decides once. */
    private static final class Decided<T> {
        private final String name;
        private T value;
        private boolean decided;

        Decided(String name, T initial) {
            this.name = name;
            this.value = initial;
        }

        T get() {
            return value;
        }

        boolean decided() {
            return decided;
        }

        void decide(T v) {
            if (decided) {
                throw new IllegalStateException("the device's " + name + " is decided once, by its owner rule;"
                        + " a second rule wrote it");
            }
            decided = true;
            value = v;
        }
    }

    public void decideMoment(String m) {
        moment.decide(m);
    }

    public void decideDeviceKey(String key) {
        device.decide(key);
    }

    /** Whether a device sample named the device ({@link SmiSampleRule}). */
    public boolean deviceKeyDecided() {
        return device.decided();
    }

    public void decideCapacity(Amount a) {
        capacity.decide(a);
    }

    public void decideSample(SmiSample s) {
        sample.decide(s);
    }

    public void decideSmiUsed(Amount a) {
        smiUsed.decide(a);
    }

    public void decideUsed(Amount a) {
        used.decide(a);
    }

    public void decideResidual(Residual r) {
        residual.decide(r);
    }

    public Amount capacity() {
        return capacity.get();
    }

    /** The npu-smi sample's reading of used ({@link SmiSampleRule}), before {@link UsedRule} picks used. */
    public Amount smiUsed() {
        return smiUsed.get();
    }

    public Amount used() {
        return used.get();
    }

    /** The npu-smi file used was read from, null when no sample at the moment shows it. */
    public String sampleFile() {
        return sample.get() == null ? null : sample.get().file();
    }

    public String sampleMoment() {
        return sample.get() == null ? null : sample.get().moment();
    }

    public Long residual() {
        return residual.get().bytes();
    }

    public int logicalDevice() {
        return logicalDevice;
    }

    public List<Integer> ranks() {
        return ranks;
    }

    public String moment() {
        return moment.get();
    }

    /**
     * The component's owner puts its line, once: a second decision of the same component throws
     * (two rules would be writing one line, and rule order would pick the winner). An owner
     * weighing several candidates decides once, after weighing them.
     */
    public void decide(Entry e) {
        if (entries.containsKey(e.component())) {
            throw new IllegalStateException("the " + e.component() + " line is decided once, by its owner rule;"
                    + " a second rule wrote it");
        }
        entries.put(e.component(), e);
    }

    /**
     * A rule that is not the component's owner takes its known line out of the sum, and says
     * why: the amount overlaps one the refining rule counts. The owner's amount, confidence and
     * sources stay; the refinement is recorded ({@link #refinements()}). Nothing happens to a
     * line that is absent or unknown.
     *
     * @param by the refining rule, named in the record
     */
    public void refine(String component, Class<?> by, String why) {
        Entry e = entries.get(component);
        if (e == null || !e.known()) {
            return;
        }
        entries.put(component, e.notCounted(why));
        refinements.add(new Refinement(component, by.getSimpleName(), why));
    }

    /** A line taken out of the sum by a rule other than its owner. */
    public record Refinement(String component, String by, String why) {
    }

    /** The refinements made so far, in the order made. */
    public List<Refinement> refinements() {
        return List.copyOf(refinements);
    }

    public Optional<Entry> get(String component) {
        return Optional.ofNullable(entries.get(component));
    }

    public boolean hasKnown(String component) {
        return get(component).map(Entry::known).orElse(false);
    }

    public boolean hasKnownCounted(String component) {
        return get(component).map(e -> e.known() && e.counted()).orElse(false);
    }

    public List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    public void check(Check c) {
        checks.add(c);
    }

    public DeviceLedger build() {
        return new DeviceLedger(device.get(), logicalDevice, ranks, moment.get(), capacity.get(), used.get(),
                List.copyOf(entries.values()), residual.get().bytes(), residual.get().note(), checks);
    }
}
