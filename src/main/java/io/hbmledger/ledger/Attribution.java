package io.hbmledger.ledger;

import io.hbmledger.ledger.check.BudgetCheck;
import io.hbmledger.ledger.gpu.GpuRuntimeRule;
import io.hbmledger.ledger.run.StatusRule;
import io.hbmledger.ledger.vllm.SeveralServersRule;
import io.hbmledger.ledger.check.KvTokensCheck;
import io.hbmledger.ledger.check.LaterSamplesCheck;
import io.hbmledger.ledger.check.LedgerSumCheck;
import io.hbmledger.ledger.check.MixedMomentsCheck;
import io.hbmledger.ledger.check.MsprofAppCheck;
import io.hbmledger.ledger.check.MsprofDeviceCheck;
import io.hbmledger.ledger.check.MsprofReadySampleCheck;
import io.hbmledger.ledger.check.MsprofUsedCheck;
import io.hbmledger.ledger.check.SampleLayoutCheck;
import io.hbmledger.ledger.checkpoint.CheckpointTotalRule;
import io.hbmledger.ledger.checkpoint.CheckpointWeightsRule;
import io.hbmledger.ledger.msprof.MsprofModulesRule;
import io.hbmledger.ledger.msprof.MsprofPeakRule;
import io.hbmledger.ledger.msprof.MsprofRunRule;
import io.hbmledger.ledger.owner.AllocatorCacheRule;
import io.hbmledger.ledger.owner.KvCacheRule;
import io.hbmledger.ledger.owner.ResidualRule;
import io.hbmledger.ledger.owner.UsedRule;
import io.hbmledger.ledger.owner.WeightsRule;
import io.hbmledger.ledger.smi.DriverBaselineRule;
import io.hbmledger.ledger.smi.ProcessTableRule;
import io.hbmledger.ledger.smi.SmiSampleRule;
import io.hbmledger.ledger.vllm.AskedUtilizationRule;
import io.hbmledger.ledger.vllm.LedgerMomentRule;
import io.hbmledger.ledger.vllm.OomRule;
import io.hbmledger.ledger.vllm.ProfilePeakRule;
import io.hbmledger.ledger.vllm.RankCoverageRule;
import io.hbmledger.ledger.vllm.ServerStartsNotes;
import io.hbmledger.ledger.vllm.UntiedOomRule;
import io.hbmledger.ledger.vllm.VllmFiguresRule;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns an evidence set into a ledger: one draft per device of the deployment, the device rules
 * in order, then the run rules. The device's own figures (moment, capacity, used, residual) and
 * each ledger line have one owner rule that decides them once ({@link DeviceDraft}); where
 * several sources could give a figure, the owner weighs them in a stated order (see
 * docs/ledger-rules.md). The order of this list only puts a rule that reads a figure after the
 * figure's owner; a rule that takes another's line out of the sum says so ({@link DeviceDraft#refine}).
 *
 * <p>Extension points: a new source comes in as a candidate its field's owner weighs, or as the
 * owner of a new line; evidence that belongs to no single device goes to the run's
 * process-level list from a {@link RunRule}.
 */
public final class Attribution {

    private final List<DeviceRule> deviceRules;
    private final List<RunRule> runRules;

    /** The project's rules, in order. */
    public static final List<DeviceRule> DEVICE_RULES = List.of(
            new LedgerMomentRule(),
            new SmiSampleRule(),
            new UsedRule(),
            new DriverBaselineRule(),
            new ProfilePeakRule(),
            new VllmFiguresRule(),
            new WeightsRule(),
            new KvCacheRule(),
            new CheckpointWeightsRule(),
            new KvTokensCheck(),
            new OomRule(),
            new ProcessTableRule(),
            new GpuRuntimeRule(),
            new MsprofUsedCheck(),
            new MsprofModulesRule(),
            new AllocatorCacheRule(),
            new MsprofPeakRule(),
            new ResidualRule(),
            new LedgerSumCheck(),
            new BudgetCheck(),
            new MixedMomentsCheck(),
            new LaterSamplesCheck(),
            new MsprofAppCheck(),
            new MsprofDeviceCheck(),
            new MsprofReadySampleCheck(),
            new SampleLayoutCheck());

    public static final List<RunRule> RUN_RULES = List.of(new StatusRule(), new RankCoverageRule(),
            new MsprofRunRule(),
            new CheckpointTotalRule(),
            new ServerStartsNotes(),
            new AskedUtilizationRule(),
            new SeveralServersRule(),
            new UntiedOomRule());

    public Attribution(List<DeviceRule> deviceRules, List<RunRule> runRules) {
        this.deviceRules = List.copyOf(deviceRules);
        this.runRules = List.copyOf(runRules);
    }

    public static Attribution standard() {
        return new Attribution(DEVICE_RULES, RUN_RULES);
    }

    public Ledger attribute(EvidenceSet ev) {
        Map<Integer, List<Integer>> ranksByDevice = new LinkedHashMap<>();
        List<Integer> devices = ev.layout().devices();
        for (int rank = 0; rank < devices.size(); rank++) {
            ranksByDevice.computeIfAbsent(devices.get(rank), k -> new ArrayList<>()).add(rank);
        }
        List<DeviceLedger> ledgers = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> slot : ranksByDevice.entrySet()) {
            DeviceDraft d = new DeviceDraft(slot.getKey(), slot.getValue());
            for (DeviceRule r : deviceRules) {
                r.apply(ev, d);
            }
            ledgers.add(sorted(d.build()));
        }
        RunDraft run = new RunDraft(ledgers);
        if (!ev.layout().devicesGiven()) {
            run.note("the run does not name its devices: rank i is assumed to have run on device i");
        }
        for (RunRule r : runRules) {
            r.apply(ev, run);
        }
        return run.build();
    }

    private static final List<String> ORDER = List.of(
            Component.DRIVER_BASELINE, Component.WEIGHTS, Component.KV_CACHE, Component.GRAPH_POOL,
            Component.ACTIVATION_PEAK, Component.NON_TORCH, Component.PROFILE_PEAK_REST,
            Component.TORCH_ALLOCATED, Component.ALLOCATOR_CACHE, Component.HCCL, Component.CANN_RUNTIME,
            Component.OTHER_MODULES, Component.SERVER_PROCESSES, Component.OTHER_PROCESSES,
            Component.OUTSIDE_PROCESSES, Component.NCCL, Component.CUDA_RUNTIME, Component.DRIVER_RESERVED);

    /** Known lines first in the canonical order, unknown lines after them. */
    private static DeviceLedger sorted(DeviceLedger d) {
        List<Entry> e = new ArrayList<>(d.entries());
        e.sort(Comparator.comparing((Entry x) -> !x.known())
                .thenComparing(x -> ORDER.indexOf(x.component()) < 0 ? ORDER.size() : ORDER.indexOf(x.component())));
        return new DeviceLedger(d.device(), d.deviceId(), d.ranks(), d.moment(), d.capacity(), d.used(), e,
                d.residualBytes(), d.residualNote(), d.checks());
    }
}
