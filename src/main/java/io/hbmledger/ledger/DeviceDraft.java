package io.hbmledger.ledger;

import io.hbmledger.ledger.DeviceLedger.Amount;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One device's ledger while the rules fill it in; {@link #build()} freezes it. Each component
 * appears once; a later rule may replace a component's entry (to lower or qualify it).
 */
public final class DeviceDraft {

    final int logicalDevice;
    final List<Integer> ranks;
    String device;
    String moment = "ready";
    Amount capacity = Amount.unknown("no npu-smi sample of this device");
    Amount used = Amount.unknown("no npu-smi sample of this device at this moment");
    /** The npu-smi file the capacity and used figures came from, when any. */
    String sampleFile;
    /** That sample's moment name, null when the run does not state it. */
    String sampleMoment;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final List<Check> checks = new ArrayList<>();
    Long residual;
    String residualNote;

    DeviceDraft(int logicalDevice, List<Integer> ranks) {
        this.logicalDevice = logicalDevice;
        this.ranks = List.copyOf(ranks);
        this.device = "device:" + logicalDevice;
    }

    public int logicalDevice() {
        return logicalDevice;
    }

    public List<Integer> ranks() {
        return ranks;
    }

    public String moment() {
        return moment;
    }

    public void put(Entry e) {
        entries.put(e.component(), e);
    }

    /** Adds the entry only when the component has none yet. */
    public void putIfAbsent(Entry e) {
        entries.putIfAbsent(e.component(), e);
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
        return new DeviceLedger(device, logicalDevice, ranks, moment, capacity, used,
                List.copyOf(entries.values()), residual, residualNote, checks);
    }
}
