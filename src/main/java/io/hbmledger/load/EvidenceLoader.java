package io.hbmledger.load;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.vllm.ServerStartsInLog;
import io.hbmledger.ledger.vllm.VllmServers;
import io.hbmledger.run.FileProblem;
import io.hbmledger.run.RunDirectory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The loading layer's one call: a run directory or a list of evidence files in, one
 * {@link EvidenceSet} out, ready for attribution. Every file is read here (npu-smi, nvidia-smi,
 * vLLM logs, checkpoints through {@link CheckpointLoader}, msprof exports through
 * {@link MsprofLoader}); the ledger does no I/O.
 */
public final class EvidenceLoader {

    private static final String NOTHING_WRITTEN = System.lineSeparator() + "hbm-ledger: no ledger written: fix or remove the files above";
    private static final String ADD_FIGURES = "add an npu-smi / nvidia-smi sample, a vLLM log with its memory lines, or an msprof export";

    private final Consumer<String> warn;

    /** @param warn receives what is worth a warning but does not stop the run (one line each, no prefix) */
    public EvidenceLoader(Consumer<String> warn) {
        this.warn = warn;
    }

    /**
     * @throws BadInputException when the inputs cannot give a ledger; every unusable file is named
     * @throws IOException when the run directory itself cannot be read
     * @throws EvidenceException when run.json is malformed (file, line and what was expected)
     */
    public LoadedRun load(LoadRequest req) throws BadInputException, IOException, EvidenceException {
        FileOptions opts = req.files();
        RunDirectory runDir = null;
        List<RunInput> files;
        List<String> writeUps = new ArrayList<>();
        if (RunInputs.isRunDirectory(req.inputs())) {
            if (opts.anyGiven()) {
                throw new BadInputException("--tp, --dp, --pp, --ep, --dtype, --kv-cache-dtype, --devices, --moment, --instant,"
                        + " --file-device and --model describe evidence files;"
                        + " a run directory takes them from its run.json");
            }
            runDir = RunDirectory.open(req.inputs().get(0));
            files = RunInputs.of(runDir);
        } else {
            FileOptionsCheck.check(opts);
            files = RunInputs.of(RunInputs.expand(req.inputs(), writeUps), opts);
            writeUps.forEach(w -> warn.accept("skipped " + w));
        }
        FileOptionsCheck.checkServerPids(req.serverPids());
        Layout layout = Deployment.layout(runDir, opts, req.serverPids());
        RunInputs.refuseRepeated(files, runDir);
        CheckpointLoader checkpoints = Deployment.checkpointLoader(runDir, opts, layout);
        EvidenceFiles read = new EvidenceFiles(layout, Deployment.pipeline(runDir, opts), checkpoints, warn);
        read.skipUnusable = runDir == null;
        files.forEach(read::read);
        if (!read.skipped.isEmpty()) {
            if (read.infos.isEmpty() && read.msprofItems.isEmpty()) {
                throw new BadInputException(String.join(System.lineSeparator() + "hbm-ledger: ", read.skipped)
                        + NOTHING_WRITTEN);
            }
            read.skipped.forEach(w -> warn.accept("skipped " + w));
        }
        String overridden = null;
        // the vLLM logs grouped into their servers once: for the deployment they state and for the evidence set
        VllmServers servers = VllmServers.of(ServerStartsInLog.lastStartOnly(read.tagged));
        if (runDir == null) {
            Optional<Layout> stated = LogDeployment.of(servers, layout.serverPids(), layout.model());
            boolean optionsGiven = opts.tp() != null || opts.dp() != null || opts.pp() != null || opts.devices() != null;
            if (stated.isPresent() && !optionsGiven) {
                layout = stated.get();
                read.retag(layout, layout.pp());
            } else if (stated.isPresent()) {
                overridden = LogDeployment.overridden(stated.get(), layout);
            }
        }
        List<String> errors = new ArrayList<>(read.errors);
        CheckpointEvidence checkpoint = CheckpointChoice.choose(req.modelDir(), runDir, checkpoints, read, errors, warn);
        if (!errors.isEmpty()) {
            throw new BadInputException(String.join(System.lineSeparator() + "hbm-ledger: ", errors) + NOTHING_WRITTEN);
        }
        refuseWithoutFigures(read);
        MsprofEvidence msprof = MsprofEvidence.none();
        if (!read.msprofItems.isEmpty()) {
            List<String> warnings = new ArrayList<>();
            MsprofInstants at = runDir != null ? MsprofInstants.of(runDir, warnings) : MsprofInstants.ofOptions(opts.instants(), warnings);
            try {
                msprof = MsprofLoader.load(read.msprofItems, at, runDir == null ? null : runDir.dir());
            } catch (IOException e) {
                throw new BadInputException("msprof evidence: " + FileProblem.describe(e) + NOTHING_WRITTEN);
            }
        }
        refuseWithoutMsprofRows(read, msprof);
        List<String> notes = new ArrayList<>();
        writeUps.forEach(w -> notes.add("skipped " + w));
        read.skipped.forEach(w -> notes.add("skipped " + w));
        notes.addAll(read.assumed);
        if (overridden != null) {
            notes.add(overridden);
        }
        return new LoadedRun(new EvidenceSet(read.tagged, read.infos, layout, checkpoint, msprof,
                Deployment.startFailure(runDir), servers), runDir, notes);
    }

    private static void refuseWithoutFigures(EvidenceFiles read) throws BadInputException {
        if (read.infos.stream().noneMatch(f -> f.format().isDeviceSample()
                || f.format().family() == EvidenceFormat.Family.VLLM_LOG || f.format().family() == EvidenceFormat.Family.MSPROF)) {
            throw new BadInputException("nothing to attribute: the run holds no npu-smi sample, vLLM log or msprof export");
        }
        if (!read.anyFigure() && read.msprofItems.isEmpty()) {
            throw new BadInputException("nothing to attribute: no file of the run holds a memory figure ("
                    + fileNames(read) + "); " + ADD_FIGURES);
        }
    }

    /**
     * msprof files were named but none held a memory row (header only, damaged, or an export
     * without memory tables): the same refusal as for files without figures.
     */
    private static void refuseWithoutMsprofRows(EvidenceFiles read, MsprofEvidence msprof) throws BadInputException {
        if (read.anyFigure() || !msprof.exports().stream().allMatch(e -> !e.summary().hasMemoryEvidence())) {
            return;
        }
        List<String> warnings = msprof.exports().stream().flatMap(e -> e.summary().warnings().stream()).limit(3).toList();
        throw new BadInputException("nothing to attribute: no file of the run holds a memory figure ("
                + fileNames(read) + "; the msprof files hold no memory rows"
                + (warnings.isEmpty() ? "" : ": " + String.join("; ", warnings))
                + "); " + ADD_FIGURES + " with npu_mem / npu_module_mem / memory_record data");
    }

    private static String fileNames(EvidenceFiles read) {
        return String.join(", ", EvidenceSet.names(read.infos));
    }
}
