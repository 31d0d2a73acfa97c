package io.hbmledger.ledger.smi;

import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A device's idle samples (moment {@code baseline}, taken before the server started): the first
 * one's used row and the processes it lists on the device. Such a process is another tenant's
 * (or a server left over from an earlier start), never the driver's: the driver's overhead is
 * used minus those processes ({@link DriverBaselineRule}), and they are the device's
 * {@code other_processes} when no sample at the ledger's moment lists processes
 * ({@link ProcessTableRule}).
 *
 * @param used the used row (npu-smi HBM / DDR usage, nvidia-smi FB used) of the first idle
 *     sample that shows one
 * @param processes that sample's process rows on the device, in table order
 * @param allUsed the used rows of every idle sample of the device, in file order (first = used)
 * @param later process rows of the later idle samples whose pid the first does not list
 */
public record IdleSample(TaggedObservation used, List<TaggedObservation> processes, List<TaggedObservation> allUsed,
                         List<TaggedObservation> later) {

    private static final List<Quantity> USED = List.of(Quantity.HBM_USED, Quantity.MEMORY_USED, Quantity.FB_USED);

    public IdleSample {
        processes = List.copyOf(processes);
        allUsed = List.copyOf(allUsed);
        later = List.copyOf(later);
    }

    /** The device's idle samples, or empty when no idle sample shows its used memory. */
    public static Optional<IdleSample> of(EvidenceSet ev, int logicalDevice) {
        List<TaggedObservation> used = new ArrayList<>();
        List<TaggedObservation> processes = List.of();
        List<TaggedObservation> later = new ArrayList<>();
        for (EvidenceSet.FileInfo f : ev.smiFiles(Moment.BASELINE)) {
            List<TaggedObservation> rows = ev.smiRows(f, logicalDevice);
            for (Quantity q : USED) {
                Optional<TaggedObservation> u = rows.stream().filter(t -> t.quantity() == q).findFirst();
                if (u.isPresent()) {
                    List<TaggedObservation> procs = rows.stream().filter(t -> t.quantity() == Quantity.PROCESS_MEMORY).toList();
                    if (used.isEmpty()) {
                        processes = procs;
                    } else {
                        List<TaggedObservation> first = processes;
                        procs.stream().filter(p -> first.stream().noneMatch(o -> o.o().context().pid() != null
                                && o.o().context().pid().equals(p.o().context().pid()))).forEach(later::add);
                    }
                    used.add(u.get());
                    break;
                }
            }
        }
        return used.isEmpty() ? Optional.empty() : Optional.of(new IdleSample(used.get(0), processes, used, later));
    }

    /** Memory of the listed processes, in bytes (0 when the sample lists none on the device). */
    public long processBytes() {
        return processes.stream().mapToLong(t -> t.o().bytes()).sum();
    }

    /** The listed processes, e.g. {@code pid 418635 vllm 54.74 GiB, pid 77 without a name 1.00 GiB}. */
    public static String describe(List<TaggedObservation> processes) {
        List<String> out = new ArrayList<>();
        for (TaggedObservation t : processes) {
            String name = t.o().context().processName();
            out.add("pid " + t.o().context().pid() + (name == null || name.isBlank() ? " without a name" : " " + name)
                    + " " + Units.gib(t.o().bytes()));
        }
        return String.join(", ", out);
    }

    /** Whether any figure was read in npu-smi's layout without its header (then what is built on it is inferred). */
    public boolean inferred() {
        return SmiReading.isInferred(used) || processes.stream().anyMatch(SmiReading::isInferred);
    }
}
