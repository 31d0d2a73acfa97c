package io.hbmledger.collect;

import io.hbmledger.evidence.nvidiasmi.NvidiaSmiCsvParser;
import io.hbmledger.evidence.nvidiasmi.NvidiaSmiProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs nvidia-smi's CSV queries on the serving host with a timeout. One sample is
 * {@code --query-gpu} followed by {@code --query-compute-apps}, both with their header line
 * ({@code --format=csv,nounits}: the header names the fields and their unit, which is what lets
 * {@code analyze} read the file by content), written one after the other into one file exactly as
 * printed. The process rows carry {@code gpu_uuid}, matched to the GPU rows' {@code uuid}, since
 * {@code --query-compute-apps} has no index field.
 */
public final class NvidiaSmi implements DeviceSmi {

    /** The GPU fields of every sample; memory.reserved is what the driver holds back (R510 and later). */
    static final String GPU_FIELDS = "index,uuid,pci.bus_id,memory.used,memory.total,memory.reserved";
    /** Drivers before memory.reserved existed refuse the field: the same query without it. */
    static final String GPU_FIELDS_OLD = "index,uuid,pci.bus_id,memory.used,memory.total";
    static final String APP_FIELDS = "gpu_uuid,pid,process_name,used_memory";
    static final String FORMAT = "--format=csv,nounits";

    private final Host host;
    private final Duration timeout;
    private volatile String gpuFields = GPU_FIELDS;

    public NvidiaSmi(Host host, Duration timeout) {
        this.host = host;
        this.timeout = timeout;
    }

    @Override
    public String tool() {
        return "nvidia-smi";
    }

    @Override
    public String sampleCommand() {
        return "nvidia-smi --query-gpu=" + gpuFields + " " + FORMAT + "; nvidia-smi --query-compute-apps=" + APP_FIELDS + " " + FORMAT;
    }

    @Override
    public String sampleFile(String moment, int seq) {
        return String.format("nvidia-smi/%s-%03d.csv", moment, seq);
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public CommandResult sample() throws IOException {
        CommandResult gpus = queryGpus();
        if (!gpus.ok()) {
            return gpus;
        }
        CommandResult apps = host.run(List.of("nvidia-smi", "--query-compute-apps=" + APP_FIELDS, FORMAT), Map.of(), timeout);
        if (!apps.ok()) {
            return apps;
        }
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.writeBytes(gpus.stdout());
        both.writeBytes(apps.stdout());
        return new CommandResult(0, both.toByteArray(), apps.stderr(), false);
    }

    private CommandResult queryGpus() throws IOException {
        CommandResult r = host.run(List.of("nvidia-smi", "--query-gpu=" + gpuFields, FORMAT), Map.of(), timeout);
        if (!r.ok() && !r.timedOut() && gpuFields.equals(GPU_FIELDS) && (r.stdoutText() + r.stderrText()).contains("memory.reserved")) {
            // nvidia-smi: 'Field "memory.reserved" is not a valid field to query.'
            gpuFields = GPU_FIELDS_OLD;
            r = host.run(List.of("nvidia-smi", "--query-gpu=" + gpuFields, FORMAT), Map.of(), timeout);
        }
        return r;
    }

    /** {@code index,uuid} of every GPU, to turn UUIDs in CUDA_VISIBLE_DEVICES into indices. */
    public CommandResult indexAndUuid() throws IOException {
        return host.run(List.of("nvidia-smi", "--query-gpu=index,uuid,memory.total", FORMAT), Map.of(), timeout);
    }

    /**
     * The continuous sampler of the load: nvidia-smi repeats the GPU query every {@code interval}
     * ({@code -lms}) until stopped, one row per GPU each time, with nvidia-smi's own timestamp.
     */
    List<String> loopCommand(Duration interval) {
        return List.of("nvidia-smi", "--query-gpu=timestamp," + gpuFields, FORMAT, "-lms", Long.toString(Math.max(1, interval.toMillis())));
    }

    @Override
    public List<Held> processes(String sample) {
        List<Held> out = new ArrayList<>();
        for (NvidiaSmiProcess p : NvidiaSmiCsvParser.processes(sample)) {
            String mem = p.memoryBytes() == null ? "memory not reported (MIG or WDDM)" : (p.memoryBytes() >> 20) + " MiB";
            out.add(new Held(p.index(), p.pid(), "GPU " + (p.index() == null ? "?" : p.index()) + ": pid " + p.pid() + " "
                    + (p.name() == null ? "" : p.name()) + " (" + mem + ")"));
        }
        return out;
    }
}
