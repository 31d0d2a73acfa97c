package io.hbmledger.evidence.msprof;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What msprof / torch_npu memory exports say, per device and per component, ready for the
 * ledger: peaks with their time, sample counts and intervals, values at named moments, the
 * npu_mem APP and device series, memory_record per component, and the process-level rest
 * (rows with no device). Pure data: no I/O.
 *
 * @param files per-file results, in the order read
 * @param series all series, slices joined, first-seen order
 * @param operators operator_memory totals per device (and per file)
 * @param warnings files that could not be read, and per-file warnings prefixed with the file
 */
public record MsprofSummary(List<MsprofFileResult> files, List<MsprofSeries> series,
                            List<MsprofOperatorTotals> operators, List<String> warnings) {

    public MsprofSummary {
        files = List.copyOf(files);
        series = List.copyOf(series);
        operators = List.copyOf(operators);
        warnings = List.copyOf(warnings);
    }

    static MsprofSummary of(Map<String, List<MsprofFileResult>> groups, List<String> readFailures) {
        List<MsprofFileResult> files = new ArrayList<>();
        List<List<MsprofSeries>> perFile = new ArrayList<>();
        List<MsprofOperatorTotals> ops = new ArrayList<>();
        List<String> warnings = new ArrayList<>(readFailures);
        List<MsprofSeries> all = new ArrayList<>();
        for (List<MsprofFileResult> slices : groups.values()) {
            perFile.clear();
            for (MsprofFileResult f : slices) {
                files.add(f);
                perFile.add(f.series());
                ops.addAll(f.operators());
                for (String w : f.warnings()) {
                    warnings.add(f.file() + ": " + w);
                }
            }
            all.addAll(MsprofSeries.joinAll(perFile));
        }
        return new MsprofSummary(files, all, ops, warnings);
    }

    /** Device keys ({@code npu:N}) with any data, by id. */
    public List<String> devices() {
        Set<String> d = new LinkedHashSet<>();
        series.stream().map(MsprofSeries::device).filter(x -> x != null).forEach(d::add);
        operators.stream().map(MsprofOperatorTotals::device).filter(x -> x != null).forEach(d::add);
        List<String> out = new ArrayList<>(d);
        out.sort(Comparator.comparingInt(MsprofSummary::deviceNumber));
        return out;
    }

    private static int deviceNumber(String key) {
        try {
            return Integer.parseInt(key.substring(key.indexOf(':') + 1));
        } catch (RuntimeException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** The memory tables any file held. */
    public Set<MsprofTable> tables() {
        Set<MsprofTable> t = EnumSet.noneOf(MsprofTable.class);
        files.forEach(f -> t.addAll(f.tables()));
        return t;
    }

    /** True when some file held a memory table with at least one value. */
    public boolean hasMemoryEvidence() {
        return !series.isEmpty() || !operators.isEmpty();
    }

    /** One series; component null for npu_mem. */
    public Optional<MsprofSeries> series(MsprofQuantity q, String device, String component) {
        return series.stream().filter(s -> s.quantity() == q && java.util.Objects.equals(s.device(), device)
                && java.util.Objects.equals(s.component(), component)).findFirst();
    }

    /** Everything measured on one device. */
    public DeviceMemory device(String device) {
        Map<String, MsprofSeries> modules = new LinkedHashMap<>();
        Map<String, MemoryRecordComponent> records = new LinkedHashMap<>();
        Map<String, MsprofSeries> graphs = new LinkedHashMap<>();
        MsprofSeries app = null;
        MsprofSeries dev = null;
        for (MsprofSeries s : series) {
            if (!device.equals(s.device())) {
                continue;
            }
            switch (s.quantity()) {
                case APP_HBM_PEAK -> app = s;
                case DEVICE_HBM_PEAK -> dev = s;
                case MODULE_RESERVED_PEAK -> modules.put(s.component(), s);
                case STATIC_GRAPH_TOTAL -> graphs.put(s.component(), s);
                case ALLOCATED_PEAK, RESERVED_PEAK, ACTIVE_PEAK -> records.merge(s.component(),
                        MemoryRecordComponent.of(s), MemoryRecordComponent::with);
                default -> {
                }
            }
        }
        MsprofOperatorTotals ops = operators.stream().filter(o -> device.equals(o.device()))
                .reduce(null, (a, b) -> a == null ? b : new MsprofOperatorTotals(device,
                        a.deviceFromFolder() && b.deviceFromFolder(), a.bytesTotal() + b.bytesTotal(),
                        a.bytesUnreleased() + b.bytesUnreleased(), a.count() + b.count(), b.file(), b.lastRow()));
        return new DeviceMemory(device, app, dev, modules, records, graphs, ops);
    }

    /** Series whose rows name no device ({@code host}, missing): process-level, never in a device's sum. */
    public List<MsprofSeries> processLevel() {
        return series.stream().filter(s -> s.device() == null).toList();
    }

    /** operator_memory totals whose rows name no device. */
    public List<MsprofOperatorTotals> processLevelOperators() {
        return operators.stream().filter(o -> o.device() == null).toList();
    }

    /**
     * npu_mem, npu_module_mem, memory_record and static graphs of one device.
     *
     * @param appHbm npu_mem {@code app}: this process's HBM, or null
     * @param deviceHbm npu_mem {@code device}: the whole device's HBM, or null
     * @param modules npu_module_mem per module (HCCL, RUNTIME, APP, SLOG, ...), zeros included
     * @param memoryRecord memory_record per component (APP, PTA, GE, PTA+GE)
     * @param staticGraphs static_op_mem TOTAL per graph id
     * @param operators operator_memory totals, or null
     */
    public record DeviceMemory(String device, MsprofSeries appHbm, MsprofSeries deviceHbm,
                               Map<String, MsprofSeries> modules, Map<String, MemoryRecordComponent> memoryRecord,
                               Map<String, MsprofSeries> staticGraphs, MsprofOperatorTotals operators) {

        public DeviceMemory {
            modules = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(modules));
            memoryRecord = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(memoryRecord));
            staticGraphs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(staticGraphs));
        }

        public Optional<MsprofSeries> app() {
            return Optional.ofNullable(appHbm);
        }

        public Optional<MsprofSeries> wholeDevice() {
            return Optional.ofNullable(deviceHbm);
        }

        public Optional<MsprofSeries> module(String name) {
            return Optional.ofNullable(modules.get(name));
        }

        public Optional<MemoryRecordComponent> record(String component) {
            return Optional.ofNullable(memoryRecord.get(component));
        }
    }

    /**
     * memory_record of one component: Total Allocated, Reserved and Active series, each absent
     * when the file has no such values for the component (APP rows carry only Reserved).
     */
    public record MemoryRecordComponent(String component, MsprofSeries allocated, MsprofSeries reserved,
                                        MsprofSeries active) {

        static MemoryRecordComponent of(MsprofSeries s) {
            return new MemoryRecordComponent(s.component(),
                    s.quantity() == MsprofQuantity.ALLOCATED_PEAK ? s : null,
                    s.quantity() == MsprofQuantity.RESERVED_PEAK ? s : null,
                    s.quantity() == MsprofQuantity.ACTIVE_PEAK ? s : null);
        }

        MemoryRecordComponent with(MemoryRecordComponent o) {
            return new MemoryRecordComponent(component, allocated != null ? allocated : o.allocated,
                    reserved != null ? reserved : o.reserved, active != null ? active : o.active);
        }

        /**
         * Reserved minus allocated at a named moment (the allocator's cache), from the last
         * samples at or before it; empty when either series or the moment's sample is missing.
         */
        public Optional<Long> cachedAt(String moment) {
            if (allocated == null || reserved == null) {
                return Optional.empty();
            }
            Optional<MsprofValueAt> a = allocated.at(moment);
            Optional<MsprofValueAt> r = reserved.at(moment);
            return a.isPresent() && r.isPresent() ? Optional.of(r.get().bytes() - a.get().bytes()) : Optional.empty();
        }
    }
}
