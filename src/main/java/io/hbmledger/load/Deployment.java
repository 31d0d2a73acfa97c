package io.hbmledger.load;

import io.hbmledger.ledger.Layout;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import java.util.List;

/**
 * How the server ran, as the ledger and the checkpoint plan need it: run.json's
 * {@code deployment} for a run directory, the options for evidence files.
 */
final class Deployment {

    private Deployment() {
    }

    /** The ledger's layout; {@code serverPids} (--server-pid) wins over run.json's. */
    static Layout layout(RunDirectory runDir, FileOptions o, List<Long> serverPids) {
        if (runDir == null) {
            return Layout.of(o.tp(), o.dp(), o.pp(), o.devices(), serverPids, o.model());
        }
        RunManifest.Deployment d = runDir.manifest().deployment();
        List<Long> pids = serverPids != null ? serverPids : d == null ? List.of() : d.serverPids();
        return d == null ? Layout.of(null, null, null, pids, null)
                : Layout.of(d.tp(), d.dp(), d.pp(), d.devices(), pids, d.model()).withUtilization(d.gpuMemoryUtilization());
    }

    /** Pipeline-parallel size: run.json's deployment, else --pp, else 1. */
    static int pipeline(RunDirectory runDir, FileOptions o) {
        RunManifest.Deployment d = runDir == null ? null : runDir.manifest().deployment();
        int p = d != null && d.pp() != null ? d.pp() : o.pp() != null ? o.pp() : 1;
        return Math.max(p, 1);
    }

    /** The checkpoint reader under the layout and serving options the checkpoint is planned with. */
    static CheckpointLoader checkpointLoader(RunDirectory runDir, FileOptions o, Layout layout) {
        RunManifest.Deployment d = runDir == null ? null : runDir.manifest().deployment();
        boolean ep = d != null ? Boolean.TRUE.equals(d.ep()) : o.ep();
        Object dt = d == null ? o.dtype() : d.extra().get("dtype");
        String kv = d != null && d.kvCacheDtype() != null ? d.kvCacheDtype() : o.kvCacheDtype() != null ? o.kvCacheDtype() : "auto";
        PlanOptions defaults = PlanOptions.defaults();
        return new CheckpointLoader(new ParallelLayout(layout.tp(), layout.dp(), pipeline(runDir, o), ep),
                new PlanOptions(dt instanceof String s ? s : "auto", kv, false, defaults.blockSize()));
    }

    /**
     * A collection that failed before its ready moment: the server never became ready, so the
     * ledger must not be labelled "ready". Null when the run does not say so.
     */
    static String startFailure(RunDirectory runDir) {
        if (runDir == null || !"failed".equals(runDir.manifest().status())
                || runDir.manifest().moments().containsKey("ready")) {
            return null;
        }
        return "run.json: status failed with no ready moment (phase " + runDir.manifest().phase() + ")";
    }
}
