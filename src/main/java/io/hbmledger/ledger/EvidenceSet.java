package io.hbmledger.ledger;

import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.ledger.smi.SmiSamples;
import io.hbmledger.ledger.vllm.ServerStartsInLog;
import io.hbmledger.ledger.vllm.VllmServers;
import io.hbmledger.run.Moment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Everything a run holds, ready for attribution: tagged observations, the files they came from,
 * the deployment layout, when the run names one, the model checkpoint, and the msprof summaries
 * (read at the edge, {@link MsprofEvidence}). Pure data with lookups; no I/O.
 *
 * @param checkpoint the checkpoint the run names, or null
 * @param msprof the run's msprof summaries, {@link MsprofEvidence#none()} without any
 * @param startFailure why the run says the server never became ready (a collection that
 *     failed before its ready moment), or null when it does not say so
 * @param vllmServers the vLLM logs grouped into their servers, once (the ledger's rules look vLLM
 *     lines up many times): null to work them out here; else the index the loader built to read the
 *     deployment, put over these observations ({@link VllmServers#over}: their ranks may have been
 *     set since), so that the restart filter and the lines always are this set's
 */
public record EvidenceSet(List<TaggedObservation> observations, List<FileInfo> files, Layout layout,
                          CheckpointEvidence checkpoint, MsprofEvidence msprof, String startFailure,
                          VllmServers vllmServers) {

    public EvidenceSet {
        // a log with several server starts: only the last start's figures (ServerStartsInLog)
        observations = List.copyOf(ServerStartsInLog.lastStartOnly(observations));
        vllmServers = vllmServers == null ? VllmServers.of(observations) : vllmServers.over(observations);
        files = List.copyOf(files);
        msprof = msprof == null ? MsprofEvidence.none() : msprof;
    }

    /** A run's evidence, its vLLM servers worked out here. */
    public EvidenceSet(List<TaggedObservation> observations, List<FileInfo> files, Layout layout,
                       CheckpointEvidence checkpoint, MsprofEvidence msprof, String startFailure) {
        this(observations, files, layout, checkpoint, msprof, startFailure, null);
    }

    /** A run that does not say its server failed to start. */
    public EvidenceSet(List<TaggedObservation> observations, List<FileInfo> files, Layout layout,
                       CheckpointEvidence checkpoint, MsprofEvidence msprof) {
        this(observations, files, layout, checkpoint, msprof, null);
    }

    /** A run that names no checkpoint and holds no msprof data. */
    public EvidenceSet(List<TaggedObservation> observations, List<FileInfo> files, Layout layout) {
        this(observations, files, layout, null, MsprofEvidence.none());
    }

    /** A run without msprof summaries. */
    public EvidenceSet(List<TaggedObservation> observations, List<FileInfo> files, Layout layout,
                       CheckpointEvidence checkpoint) {
        this(observations, files, layout, checkpoint, MsprofEvidence.none());
    }

    /** A run that names no checkpoint. */
    public EvidenceSet(List<TaggedObservation> observations, List<FileInfo> files, Layout layout,
                       MsprofEvidence msprof) {
        this(observations, files, layout, null, msprof);
    }

    /**
     * One listing of an evidence file of the run: as shown to the user, its format and its
     * moment. A file is listed once per kind of evidence and moment it holds (a paste with an
     * idle table and one taken after the start is two device samples; with a log excerpt too, a
     * log as well), so where files are named, {@link #names} names each once.
     */
    public record FileInfo(String file, EvidenceFormat format, Moment moment) {
    }

    /** Each file of the listings once, in the order listed. */
    public static List<String> names(List<FileInfo> files) {
        return files.stream().map(FileInfo::file).distinct().toList();
    }

    /**
     * A device-sample listing as named to the user: its file, and its moment when the file's
     * tables were taken at several ({@code issue.md (baseline)}, {@code issue.md (ready)}).
     */
    public String shown(FileInfo file) {
        return splitByMoment(file.file()) ? file.file() + " (" + (file.moment() == null ? "no moment" : file.moment().jsonName()) + ")"
                : file.file();
    }

    /** True when the prose of a paste gives its device tables different moments. */
    private boolean splitByMoment(String file) {
        return files.stream().filter(f -> f.file().equals(file) && f.format().isDeviceSample())
                .map(FileInfo::moment).distinct().count() > 1;
    }

    /**
     * The pids the evidence ties to the server: run.json / --server-pid ({@link Layout#serverPids}),
     * then the vLLM log's worker prefixes, each once. The process-table rule and the findings both
     * tell the server's rows from other tenants' by them.
     */
    public List<Long> serverPids() {
        java.util.LinkedHashSet<Long> pids = new java.util.LinkedHashSet<>(layout == null ? List.of() : layout.serverPids());
        for (TaggedObservation t : observations) {
            if (t.isVllm() && t.o().context().pid() != null) {
                pids.add(t.o().context().pid());
            }
        }
        return List.copyOf(pids);
    }

    public List<TaggedObservation> where(Predicate<TaggedObservation> p) {
        List<TaggedObservation> out = new ArrayList<>();
        for (TaggedObservation t : observations) {
            if (p.test(t)) {
                out.add(t);
            }
        }
        return out;
    }

    /** Whether the run holds a file written by the given tool. */
    public boolean has(EvidenceFormat.Family family) {
        return files.stream().anyMatch(f -> f.format().family() == family);
    }

    /** Device-sample files (npu-smi) taken at the given moment; null asks for untagged ones. */
    public List<FileInfo> smiFiles(Moment moment) {
        return files.stream().filter(f -> f.format().isDeviceSample())
                .filter(f -> Objects.equals(f.moment(), moment)).toList();
    }

    /**
     * The npu-smi row observations of one logical device in one file. A table that shows the
     * chip's Phy-ID / Device id is matched on it; otherwise the logical id is taken as the NPU id
     * with chip 0 (one chip per NPU, 910B). nvidia-smi rows are matched on {@code gpu:<index>}.
     */
    public List<TaggedObservation> smiRows(FileInfo file, int logicalDevice) {
        // One sample per device per file: the first of an idle (baseline) capture, which is the
        // closest to "before the server started"; otherwise the last one that has the device's
        // usage row (the latest complete state). SmiSamples says where samples begin.
        List<List<TaggedObservation>> samples = smiSamples(file, logicalDevice);
        if (samples.isEmpty()) {
            return List.of();
        }
        return file.moment() == Moment.BASELINE ? samples.get(0) : samples.get(samples.size() - 1);
    }

    /**
     * The device's rows in a device-sample file, one list per sample that shows the device's
     * usage, in file order (see {@link SmiSamples}).
     */
    public List<List<TaggedObservation>> smiSamples(FileInfo file, int logicalDevice) {
        List<List<TaggedObservation>> out = new ArrayList<>();
        for (List<TaggedObservation> sample : SmiSamples.split(smiOf(file))) {
            List<TaggedObservation> rows = deviceRows(sample, logicalDevice);
            if (rows.stream().anyMatch(t -> t.quantity() != Quantity.PROCESS_MEMORY && t.quantity() != Quantity.PROCESS_COUNT)) {
                out.add(rows);
            }
        }
        return out;
    }

    /**
     * The device-sample observations of a file at the file's moment. A paste whose prose gives its
     * tables different moments ("before starting vLLM: ... after starting it: ...") is listed once
     * per moment, and each listing holds only its own tables; a file with one moment holds all.
     */
    public List<TaggedObservation> smiOf(FileInfo file) {
        boolean split = splitByMoment(file.file());
        return where(t -> t.file().equals(file.file()) && t.isSmi() && (!split || Objects.equals(t.moment(), file.moment())));
    }

    /**
     * The device-sample file a ledger's sample was read from ({@link DeviceDraft#sampleFile()},
     * {@link DeviceDraft#sampleMoment()}): its listing at that moment, or its first listing.
     */
    public FileInfo smiFile(String file, String momentName) {
        List<FileInfo> named = files.stream().filter(f -> f.file().equals(file) && f.format().isDeviceSample()).toList();
        return named.stream().filter(f -> Objects.equals(f.moment() == null ? null : f.moment().jsonName(), momentName))
                .findFirst().orElse(named.isEmpty() ? new FileInfo(file, EvidenceFormat.UNKNOWN, null) : named.get(0));
    }

    private static List<TaggedObservation> deviceRows(List<TaggedObservation> inFile, int logicalDevice) {
        boolean hasIds = inFile.stream().anyMatch(t -> t.o().context().deviceId() != null);
        boolean gpu = inFile.stream().anyMatch(t -> t.format().family() == EvidenceFormat.Family.NVIDIA_SMI);
        String key = gpu ? "gpu:" + logicalDevice : "npu:" + logicalDevice + "/chip:0";
        return inFile.stream().filter(t -> hasIds
                ? Objects.equals(t.o().context().deviceId(), logicalDevice)
                : key.equals(t.o().context().device())).toList();
    }

    /** The npu-smi device key of a logical device in a file, when a row matched. */
    public Optional<String> smiKey(FileInfo file, int logicalDevice) {
        return smiRows(file, logicalDevice).stream().map(t -> t.o().context().device())
                .filter(Objects::nonNull).findFirst();
    }

    /** Whether the file lists any process at all (so an absent row means "no process there"). */
    public boolean smiListsProcesses(FileInfo file) {
        // process_count 0: npu-smi's "No running processes found in NPU n", a table that lists nothing
        return smiOf(file).stream().anyMatch(t -> t.quantity() == Quantity.PROCESS_MEMORY || t.quantity() == Quantity.PROCESS_COUNT);
    }

    public Optional<TaggedObservation> first(String file, List<TaggedObservation> rows, Quantity quantity) {
        return rows.stream().filter(t -> t.quantity() == quantity).findFirst();
    }

    /**
     * vLLM log observations of one quantity, in file order, for the ledger: of a log that holds
     * servers of different models, only the last model's ({@link VllmServers#lines}).
     */
    public List<TaggedObservation> vllm(Quantity quantity) {
        return vllmServers.lines(quantity);
    }

    /** Observations of one quantity from any format, in file order. */
    public List<TaggedObservation> quantity(Quantity quantity) {
        return where(t -> t.quantity() == quantity);
    }
}
