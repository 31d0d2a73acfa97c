package io.hbmledger.collect;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Runs {@code npu-smi info} on the serving host with a timeout; a hung npu-smi is killed, not waited for. */
public final class NpuSmi {

    private final Host host;
    private final Duration timeout;

    public NpuSmi(Host host, Duration timeout) {
        this.host = host;
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }

    /** One {@code npu-smi info} run; check {@link CommandResult#timedOut()} and the exit code. */
    public CommandResult info() throws IOException {
        return host.run(List.of("npu-smi", "info"), Map.of(), timeout);
    }
}
