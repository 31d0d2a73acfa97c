package io.hbmledger.collect;

import io.hbmledger.evidence.npusmi.NpuSmiInfoParser;
import io.hbmledger.evidence.npusmi.NpuSmiProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks made before anything is started or measured: npu-smi present, the devices locked against
 * another collection and, for a run that takes an idle baseline, no process on them. Each failure
 * is a {@link Collection.Refusal}: the run directory is removed again.
 */
final class Preflight {

    private final Collection c;

    Preflight(Collection c) {
        this.c = c;
    }

    void check(List<Integer> devices, String runId, boolean mustBeIdle) throws IOException {
        if (!c.host.hasCommand("npu-smi")) {
            throw new Collection.Refusal("npu-smi is not on PATH of " + c.host.name()
                    + "; install the Ascend driver tools or put npu-smi on PATH");
        }
        c.lock(devices, runId);
        if (mustBeIdle) {
            checkIdle(devices);
        }
    }

    private void checkIdle(List<Integer> devices) throws IOException {
        CommandResult r = c.npuSmi.info();
        if (!r.ok()) {
            throw new Collection.Refusal("npu-smi info " + (r.timedOut() ? "did not answer within " + c.npuSmi.timeout().toSeconds() + " s"
                    : "exited " + r.exitCode() + ": " + r.stderrText().strip()) + "; cannot check that the devices are idle");
        }
        List<String> busy = new ArrayList<>();
        for (NpuSmiProcess p : NpuSmiInfoParser.processes(r.stdoutText())) {
            if (devices.contains(p.device())) {
                busy.add("device " + p.device() + ": pid " + p.pid() + " " + p.name() + " (" + p.memoryMib() + " MB)");
            }
        }
        if (!busy.isEmpty()) {
            throw new Collection.Refusal("the chosen devices are not idle, so no clean baseline can be taken: " + String.join("; ", busy)
                    + ". Stop those processes or choose other --devices");
        }
    }
}
