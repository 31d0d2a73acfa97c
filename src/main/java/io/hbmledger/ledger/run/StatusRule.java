package io.hbmledger.ledger.run;

import io.hbmledger.ledger.Accelerator;
import io.hbmledger.ledger.Component;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.RunDraft;
import io.hbmledger.ledger.RunRule;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.ledger.vllm.LedgerMomentRule;
import io.hbmledger.ledger.vllm.OomDevices;
import java.util.ArrayList;
import java.util.List;

/**
 * The run's status. {@code failed} when the server ran out of memory; otherwise
 * {@code incomplete} with a reason for each kind of evidence that is missing (on Ascend msprof above
 * all: without it HCCL, CANN runtime and the peak under load are not measured; on NVIDIA GPUs, which
 * have no profiler here, the nvidia-smi samples with the serving processes' memory), and
 * {@code complete} only when nothing is.
 */
public final class StatusRule implements RunRule {

    @Override
    public void apply(EvidenceSet ev, RunDraft run) {
        List<TaggedObservation> ooms = ev.where(OomDevices::isOom);
        List<String> failed = new ArrayList<>();
        for (DeviceLedger d : run.devices()) {
            if (d.deviceId() != null && !OomDevices.of(ev, d.deviceId()).isEmpty()) {
                failed.add(d.device());
            }
        }
        if (!failed.isEmpty()) {
            TaggedObservation first = ooms.get(0);
            run.failed("the server ran out of memory on " + String.join(", ", failed) + " ("
                    + first.file() + ":" + first.o().line() + ")");
        } else if (!ooms.isEmpty()) {
            TaggedObservation first = ooms.get(0);
            run.failed("the log holds an out-of-memory failure (" + first.file() + ":" + first.o().line()
                    + ") that could not be tied to a device of the deployment (its figures are under process_level);"
                    + " name the device: --file-device LOG=ID, or evidence[].device in run.json");
        }
        if (ooms.isEmpty()) {
            // the collection's own failure reason reaches the ledger through withCollection
            var kv = LedgerMomentRule.refusedKv(ev);
            kv.ifPresent(t -> run.failed("the server did not start: vLLM found no"
                    + " memory left for the KV cache (" + t.source().shortForm() + ") and refuses to start with none"));
            if (kv.isEmpty()) {
                // the failed profiling check is no refusal: vLLM stops on its own assertion
                LedgerMomentRule.refusedStart(ev).ifPresent(t -> run.failed("the server did not start: the engine"
                        + ("profiling_check".equals(t.o().context().component()) ? " stopped" : " refused")
                        + " it in phase " + t.o().context().component() + " (" + t.file() + ":" + t.o().line()
                        + "); the findings give the arithmetic"));
            }
        }
        if (Accelerator.gpu(ev)) {
            // no profiler on GPUs: the nvidia-smi samples and the log are the whole GPU evidence
            for (DeviceLedger d : run.devices()) {
                if (d.used().known() && d.entries().stream().noneMatch(e -> e.component().equals(Component.SERVER_PROCESSES) && e.known())) {
                    run.incomplete("no nvidia-smi per-process memory of the serving processes on " + d.device() + " at " + d.moment()
                            + ": the CUDA context and NCCL buffers cannot be told from other memory (collect samples"
                            + " --query-compute-apps; or give deployment.server_pids)");
                }
            }
        } else if (!ev.has(EvidenceFormat.Family.MSPROF) && Accelerator.of(ev) == Accelerator.Kind.UNKNOWN) {
            // a log alone does not say which accelerator it ran on
            run.incomplete("no profiler evidence in the run (msprof on Ascend; none is read yet for NVIDIA GPUs):"
                    + " collective buffers (HCCL/NCCL), the runtime and the peak under load are not measured");
        } else if (!ev.has(EvidenceFormat.Family.MSPROF)) {
            run.incomplete("no msprof evidence in the run: HCCL, CANN runtime and the peak under load are not measured");
        }
        if (!ev.has(EvidenceFormat.Family.VLLM_LOG)) {
            run.incomplete("no vLLM log in the run: weights, KV cache and graph pool are unknown");
        }
        if (ev.smiFiles(io.hbmledger.run.Moment.BASELINE).isEmpty()) {
            run.incomplete("no idle baseline " + Accelerator.smiName(ev) + " sample: driver baseline unknown");
        }
        java.util.Set<String> unknown = new java.util.LinkedHashSet<>();
        for (DeviceLedger d : run.devices()) {
            if (!d.used().known()) {
                run.incomplete("no " + Accelerator.smiName(ev) + " sample of " + d.device() + " at " + d.moment() + ": used and residual unknown");
            }
            for (Entry e : d.entries()) {
                if (!e.known()) {
                    unknown.add(e.component());
                }
            }
        }
        if (!unknown.isEmpty()) {
            run.incomplete("ledger lines without evidence: " + String.join(", ", unknown));
        }
    }
}
