package io.hbmledger.collect;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks made before anything is started or measured: the device tool (npu-smi or nvidia-smi) present, the devices locked against
 * another collection and, for a run that takes an idle baseline, no process on them. Each failure
 * is a {@link Collection.Refusal}: the run directory is removed again.
 */
final class Preflight {

    private final Collection c;

    Preflight(Collection c) {
        this.c = c;
    }

    void check(List<Integer> devices, String runId, boolean mustBeIdle) throws IOException {
        String tool = c.smi.tool();
        if (!c.host.hasCommand(tool)) {
            throw new Collection.Refusal(tool + " is not on PATH of " + c.host.name() + "; "
                    + (c.executions.accelerator() == Accelerator.ASCEND
                    ? "install the Ascend driver tools or put npu-smi on PATH (on an NVIDIA host: --accelerator nvidia)"
                    : "install the NVIDIA driver or put nvidia-smi on PATH (on an Ascend host: --accelerator ascend)"));
        }
        c.lock(devices, runId);
        if (mustBeIdle) {
            checkIdle(devices);
        }
    }

    /**
     * A worker node (sample-only): the device tool present and, before the head starts the server,
     * no process on any device of the node. No device is locked: a worker starts nothing there.
     */
    void checkWorker(String runId, boolean mustBeIdle) throws IOException {
        check(List.of(), runId, false);
        if (mustBeIdle) {
            checkIdle(null);
        }
    }

    /** @param devices the devices that must be idle; null for every device of the host */
    private void checkIdle(List<Integer> devices) throws IOException {
        CommandResult r = c.smi.sample();
        if (!r.ok()) {
            throw new Collection.Refusal(c.smi.tool() + " " + (r.timedOut() ? "did not answer within " + c.smi.timeout().toSeconds() + " s"
                    : "exited " + r.exitCode() + ": " + r.stderrText().strip()) + "; cannot check that the devices are idle");
        }
        List<String> busy = new ArrayList<>();
        for (DeviceSmi.Held p : c.smi.processes(r.stdoutText())) {
            // a process whose GPU the sample does not name may be on ours: busy too
            if (devices == null || p.device() == null || devices.contains(p.device())) {
                busy.add(p.text());
            }
        }
        if (!busy.isEmpty()) {
            throw new Collection.Refusal("the chosen devices are not idle, so no clean baseline can be taken: " + String.join("; ", busy)
                    + ". Stop those processes or choose other --devices");
        }
    }
}
