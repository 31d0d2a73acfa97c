package io.hbmledger.collect;

import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Runs {@code npu-smi info} on the serving host with a timeout; a hung npu-smi is killed, not waited for. */
public final class NpuSmi implements DeviceSmi {

    private final Host host;
    private final Duration timeout;

    public NpuSmi(Host host, Duration timeout) {
        this.host = host;
        this.timeout = timeout;
    }

    @Override
    public String tool() {
        return "npu-smi";
    }

    @Override
    public String sampleCommand() {
        return "npu-smi info";
    }

    @Override
    public String sampleFile(String moment, int seq) {
        return String.format("npu-smi/%s-%03d.txt", moment, seq);
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    /** One {@code npu-smi info} run; check {@link CommandResult#timedOut()} and the exit code. */
    public CommandResult info() throws IOException {
        return host.run(List.of("npu-smi", "info"), Map.of(), timeout);
    }

    @Override
    public CommandResult sample() throws IOException {
        return info();
    }

    @Override
    public List<Held> processes(String sample) {
        return NpuSmiInfoParser.processes(sample).stream()
                .map((NpuSmiProcess p) -> new Held(p.device(), p.pid(),
                        "device " + p.device() + ": pid " + p.pid() + " " + p.name() + " (" + p.memoryMib() + " MB)"))
                .toList();
    }
}
