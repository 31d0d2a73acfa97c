package io.hbmledger.ledger.smi;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.DeviceRule;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Source;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.ledger.check.UnlistedServerCheck;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The npu-smi process table of the sample that gave "used": memory of the serving processes and
 * of every other process (measured for one process row, inferred with the sum shown for several), and device used minus all process memory as the part no
 * process is charged for (driver, firmware, runtime reserve; inferred from measured figures).
 *
 * <p>Server processes are the pids the evidence names: run.json's {@code deployment.server_pids}
 * ({@code --server-pid}) and the pids of the vLLM log's worker prefixes. A process is never the
 * server's by its name: a second vLLM instance on the card is a python process too, and exactly
 * the one the user needs to see. Without a pid that ties a row to the server, every row is
 * {@code other_processes}; when the vLLM figures are counted, that line then stays out of the sum,
 * as it may hold the server's own process.
 */
public final class ProcessTableRule implements DeviceRule {

    @Override
    public void apply(EvidenceSet ev, DeviceDraft d) {
        if (d.sampleFile() == null) {
            String none = "no " + Accelerator.smiName(ev) + " sample at " + d.moment();
            d.decide(idleOthers(ev, d, none).orElse(Entry.unknown(Component.OTHER_PROCESSES, none)));
            return;
        }
        EvidenceSet.FileInfo sample = ev.smiFile(d.sampleFile(), d.sampleMoment());
        if (!ev.smiListsProcesses(sample)) {
            String none = "the " + d.moment() + " sample lists no process on any device (no process table, or it was cut off)";
            d.decide(idleOthers(ev, d, none).orElse(Entry.unknown(Component.OTHER_PROCESSES, none)));
            return;
        }
        List<TaggedObservation> procs = ev.smiRows(sample, d.logicalDevice()).stream()
                .filter(t -> t.quantity() == Quantity.PROCESS_MEMORY).toList();
        List<Long> pids = ev.serverPids();
        // In a container, npu-smi may show host pids while the server's own pids are the
        // container's: when no listed pid of the whole sample is a server pid, pids cannot tell.
        boolean pidsSeen = !pids.isEmpty() && ev.smiOf(sample).stream()
                .anyMatch(t -> t.quantity() == Quantity.PROCESS_MEMORY && pids.contains(t.o().context().pid()));
        boolean byPid = pidsSeen;
        List<TaggedObservation> server = new ArrayList<>();
        List<TaggedObservation> other = new ArrayList<>();
        for (TaggedObservation p : procs) {
            boolean isServer = byPid && pids.contains(p.o().context().pid());
            (isServer ? server : other).add(p);
        }
        String how = byPid ? "told apart by the server's pids (run.json server_pids, --server-pid, the log's pid= prefixes)"
                : pids.isEmpty() ? "no evidence names the server's pids (--server-pid, run.json server_pids, or a log with"
                        + " pid= prefixes), so no row is counted as the server's, whatever its name"
                : "none of the server's pids (" + pids + ") is in this " + Accelerator.smiName(ev) + " table (a container"
                        + " shows other pids than the host), so no row is counted as the server's, whatever its name";
        if (byPid) {
            UnlistedServerCheck.apply(d, other);
        }
        long serverBytes = sum(server);
        long otherBytes = sum(other);
        boolean split = splitByVllm(d);
        if (!server.isEmpty()) {
            Entry e = new Entry(Component.SERVER_PROCESSES, serverBytes, confidence(server), sources(server),
                    "serving process memory per the process table (" + describe(server) + "), " + how,
                    d.sampleMoment(), true, arithmetic(server));
            d.decide(split ? e.notCounted("holds the vLLM components above, so not in the sum") : e);
        }
        // No other process: the table's rows for this device (or its usage row) are the evidence.
        List<Source> otherSrc = !other.isEmpty() ? sources(other)
                : !server.isEmpty() ? sources(server) : d.used().known() ? List.of(d.used().source()) : List.of();
        Entry others = new Entry(Component.OTHER_PROCESSES, otherBytes, confidence(other), otherSrc,
                other.isEmpty() ? "the process table lists no other process on this device"
                        : "other processes on this device (" + describe(other) + "), " + how,
                d.sampleMoment(), true, arithmetic(other));
        d.decide(!byPid && split && !other.isEmpty()
                ? others.notCounted("may hold the server's own process, whose vLLM components are counted above")
                : others);
        if (d.used().known()) {
            long all = serverBytes + otherBytes;
            long outside = d.used().bytes() - all;
            List<Source> src = new ArrayList<>();
            src.add(d.used().source());
            src.addAll(sources(procs));
            d.decide(new Entry(Component.OUTSIDE_PROCESSES, outside, Confidence.INFERRED, src,
                    "device used minus the memory of every listed process: driver, firmware and runtime reserve",
                    d.sampleMoment(), true, "used " + d.used().bytes() + " B - processes " + all + " B = " + outside
                            + " B (" + Units.gib(outside) + ")"));
            d.refine(Component.DRIVER_BASELINE, ProcessTableRule.class, "part of outside_processes, so not in the sum");
        }
    }

    /**
     * Without a process table at the ledger's moment, the processes the idle sample listed before
     * the server started (not the server's pids): they held that memory before vLLM came and are
     * taken to hold it still, so inferred. {@link DriverBaselineRule} leaves them out of the driver.
     */
    private static java.util.Optional<Entry> idleOthers(EvidenceSet ev, DeviceDraft d, String why) {
        List<Long> pids = ev.serverPids();
        List<TaggedObservation> rows = IdleSample.of(ev, d.logicalDevice()).map(IdleSample::processes).orElse(List.of())
                .stream().filter(t -> !pids.contains(t.o().context().pid())).toList();
        if (rows.isEmpty()) {
            return java.util.Optional.empty();
        }
        long sum = sum(rows);
        return java.util.Optional.of(new Entry(Component.OTHER_PROCESSES, sum, Confidence.INFERRED, sources(rows),
                "listed in the idle sample taken before the server started (" + IdleSample.describe(rows) + "); " + why
                        + (rows.size() == 1 ? ", so it is taken to hold" : ", so they are taken to hold") + " the same memory still", Moment.BASELINE.jsonName(), true,
                (rows.size() == 1 ? "pid " + rows.get(0).o().context().pid() + " " + sum + " B" : arithmetic(rows))
                        + " as listed before the server started"));
    }

    /**
     * Every process row is counted whole, no vLLM figure overlaps them, and outside_processes is
     * used minus those rows: the sum is used by construction, and the residual says nothing.
     */
    public static boolean coversUsed(DeviceDraft d) {
        boolean rowsWhole = d.get(Component.SERVER_PROCESSES).filter(Entry::known).map(Entry::counted).orElse(true)
                && d.get(Component.OTHER_PROCESSES).filter(Entry::known).map(Entry::counted).orElse(true);
        return rowsWhole && !splitByVllm(d) && d.hasKnownCounted(Component.OUTSIDE_PROCESSES);
    }

    /** vLLM's own figures are counted: the process rows then overlap them. */
    private static boolean splitByVllm(DeviceDraft d) {
        return d.hasKnownCounted(Component.WEIGHTS) || d.hasKnownCounted(Component.KV_CACHE)
                || d.hasKnownCounted(Component.TORCH_ALLOCATED);
    }

    /**
     * Rows of one npu-smi sample's process table, added up, are still that sample's reading
     * (measured; several rows show their sum). Only lines that bring in another source or a
     * rate, like outside_processes (used - listed rows), are inferred, and so are rows pasted
     * without their header, whose columns come from npu-smi's layout ({@link SmiReading}).
     */
    private static Confidence confidence(List<TaggedObservation> l) {
        return l.stream().anyMatch(SmiReading::isInferred) ? Confidence.INFERRED : Confidence.MEASURED;
    }

    private static String arithmetic(List<TaggedObservation> l) {
        if (l.size() == 1) {
            return SmiReading.arithmetic(l.get(0));
        }
        if (l.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (TaggedObservation t : l) {
            b.append(b.length() == 0 ? "" : " + ").append("pid ").append(t.o().context().pid()).append(' ')
                    .append(t.o().bytes()).append(" B");
        }
        long sum = sum(l);
        return b.append(" = ").append(sum).append(" B (").append(Units.gib(sum)).append(')').toString();
    }

    private static long sum(List<TaggedObservation> l) {
        return l.stream().mapToLong(t -> t.o().bytes()).sum();
    }

    private static List<Source> sources(List<TaggedObservation> l) {
        return l.stream().map(TaggedObservation::source).toList();
    }

    private static String describe(List<TaggedObservation> l) {
        StringBuilder b = new StringBuilder();
        for (TaggedObservation t : l) {
            b.append(b.length() == 0 ? "" : ", ").append("pid ").append(t.o().context().pid())
                    .append(t.o().context().processName() == null ? "" : " " + t.o().context().processName());
        }
        return b.toString();
    }
}
