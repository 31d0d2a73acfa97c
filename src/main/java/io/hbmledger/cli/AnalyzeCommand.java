package io.hbmledger.cli;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReaders;
import io.hbmledger.evidence.Observation;
import io.hbmledger.ledger.Attribution;
import io.hbmledger.ledger.CheckpointEvidence;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Layout;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.ledger.MsprofEvidence;
import io.hbmledger.ledger.RankLabels;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.report.LedgerJsonWriter;
import io.hbmledger.report.LedgerTextWriter;
import io.hbmledger.run.AtomicFile;
import io.hbmledger.run.FileProblem;
import io.hbmledger.run.Moment;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunInstants;
import io.hbmledger.run.RunManifest.Deployment;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import io.hbmledger.run.RunManifest;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hbm-ledger analyze RUN}: the per-device HBM ledger of a run directory or of evidence files. */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        // picocli lists a subcommand by its header (else the first description line): one sentence
        header = "Per-device HBM ledger of a run directory or of evidence files.",
        // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
        description = {"Attribute each device's memory: driver baseline, weights, KV cache, graph pool, other processes"
            + " and the residual, each with its source line and confidence. RUN is a run directory (holding run.json,"
            + " see docs/run.schema.json) or evidence files (npu-smi tables, vLLM logs, ...) described with"
            + " --tp/--dp/--devices/--moment. For a run directory, report.json (hbm-ledger/report/1) is written beside"
            + " run.json."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ledger printed (its status may still be incomplete or failed; when report.json cannot be written a warning says why)",
            "2:unusable input (bad run.json, unreadable, empty or unknown evidence); nothing written"})
public final class AnalyzeCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "RUN", description = "a run directory, or evidence files")
    List<Path> inputs;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE})")
    OutputFormat format;

    @Option(names = "--tp", description = "tensor-parallel size (evidence files only; default 1)")
    Integer tp;

    @Option(names = "--dp", description = "data-parallel size (evidence files only; default 1)")
    Integer dp;

    @Option(names = "--devices", split = ",", paramLabel = "ID",
            description = "device ids in rank order, as in ASCEND_RT_VISIBLE_DEVICES, at most one per rank (evidence files only;"
                    + " default 0..TPxDPxPP-1)")
    List<Integer> devices;

    @Option(names = "--moment", paramLabel = "FILE=MOMENT",
            description = "when a file was taken: baseline, ready, load, after, startup, oom, static (evidence files only)")
    Map<String, String> moments = new LinkedHashMap<>();

    @Option(names = "--file-device", paramLabel = "FILE=ID",
            description = "the logical device a file's figures concern, e.g. the device of an out-of-memory log (evidence files only; as evidence[].device in run.json)")
    Map<String, Integer> fileDevices = new LinkedHashMap<>();

    @Option(names = "--server-pid", split = ",", paramLabel = "PID",
            description = "pids of the serving processes, to tell them from other processes in npu-smi's table")
    List<Long> serverPids;

    @Option(names = "--model", description = "model name for the heading (evidence files only)")
    String model;

    @Option(names = "--instant", paramLabel = "NAME=TIME",
            description = "a wall-clock instant of the run, to read msprof series at: NAME one of baseline, start, ready,"
                    + " load_start, load_end, after, stop, export, copy; TIME ISO-8601 with offset or Z, e.g."
                    + " ready=2026-11-29T21:03:04+08:00 (evidence files only; a run directory takes them from run.json moments)")
    Map<String, String> instants = new LinkedHashMap<>();

    @Option(names = "--model-dir", paramLabel = "DIR",
            description = "the checkpoint vLLM served: model directory (config.json, *.safetensors, index), a weights manifest"
                + " saved by `weights --save-manifest`, or one .safetensors file. Its per-device share is shown next to vLLM's"
                + " weights and its KV bytes per token check vLLM's KV figure. Overrides run.json's deployment.model_dir.")
    Path modelDir;

    @Option(names = "--pp", description = "pipeline-parallel size, for the checkpoint's per-device share and the rank of a PP worker's log lines (evidence files only; default 1)")
    Integer pp;

    @Option(names = "--ep", description = "expert parallelism was on (--enable-expert-parallel), for the checkpoint's share (evidence files only)")
    boolean ep;

    @Option(names = "--dtype", description = "vLLM --dtype, for the checkpoint's per-device share (evidence files only; default auto)")
    String dtype;

    @Option(names = "--kv-cache-dtype", description = "vLLM --kv-cache-dtype, for KV bytes per token (evidence files only; default auto)")
    String kvCacheDtype;

    @Option(names = "--all-devices", description = "print every device's full ledger (by default, above 4 devices a summary and the notable devices)")
    boolean allDevices;

    @Option(names = "--no-write", description = "do not write report.json into the run directory")
    boolean noWrite;

    @Spec
    CommandSpec spec;

    /** One evidence file to read, with what the run says about it. */
    private record Input(Path path, String shown, String sourceName, Moment moment, Integer rank, Integer device) {
    }

    private static final class BadInput extends Exception {
        BadInput(String message) {
            super(message);
        }
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        try {
            return run(err);
        } catch (BadInput e) {
            err.println("hbm-ledger: " + e.getMessage());
            err.flush();
            return Main.EXIT_BAD_INPUT;
        } catch (EvidenceException e) {
            err.println("hbm-ledger: " + e.getMessage());
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
    }

    private int run(PrintWriter err) throws IOException, EvidenceException, BadInput {
        boolean runMode = inputs.size() == 1 && (Files.isDirectory(inputs.get(0)) && !MsprofLoader.isExportDir(inputs.get(0))
                || inputs.get(0).getFileName().toString().equals(RunManifest.FILE_NAME));
        RunDirectory runDir = null;
        List<Input> files;
        Layout layout;
        if (runMode) {
            if (tp != null || dp != null || pp != null || ep || dtype != null || kvCacheDtype != null || devices != null
                    || !moments.isEmpty() || model != null || !instants.isEmpty() || !fileDevices.isEmpty()) {
                throw new BadInput("--tp, --dp, --pp, --ep, --dtype, --kv-cache-dtype, --devices, --moment, --instant,"
                        + " --file-device and --model describe evidence files;"
                        + " a run directory takes them from its run.json");
            }
            runDir = RunDirectory.open(inputs.get(0));
            files = runInputs(runDir);
            Deployment d = runDir.manifest().deployment();
            List<Long> pids = serverPids != null ? serverPids : d == null ? List.of() : d.serverPids();
            layout = d == null ? Layout.of(null, null, null, pids, null)
                    : Layout.of(d.tp(), d.dp(), d.pp(), d.devices(), pids, d.model());
        } else {
            checkLayoutOptions();
            files = fileInputs();
            layout = Layout.of(tp, dp, pp, devices, serverPids, model);
        }
        refuseRepeatedFiles(files, runDir);
        List<String> errors = new ArrayList<>();
        List<TaggedObservation> tagged = new ArrayList<>();
        List<EvidenceSet.FileInfo> infos = new ArrayList<>();
        EvidenceReaders readers = EvidenceReaders.all();
        CheckpointLoader loader = checkpointLoader(runDir, layout);
        int pipeline = ppSize(runDir);
        CheckpointEvidence checkpoint = null;
        List<CheckpointLoader.LooseFile> loose = new ArrayList<>();
        List<MsprofLoader.Item> msprofItems = new ArrayList<>();
        for (Input in : files) {
            try {
                Optional<EvidenceFormat> msprofFormat = MsprofLoader.format(in.path());
                if (msprofFormat.isPresent()) {
                    // read below as a whole, at the run's instants: the ledger gets summaries
                    msprofItems.add(new MsprofLoader.Item(in.path(), in.sourceName()));
                    infos.add(new EvidenceSet.FileInfo(in.sourceName(), msprofFormat.get(), in.moment()));
                    continue;
                }
                if (CheckpointLoader.isManifest(in.path())) {
                    if (checkpoint == null) {
                        checkpoint = loader.manifest(in.path(), in.shown(), in.sourceName());
                    }
                    infos.add(new EvidenceSet.FileInfo(in.sourceName(), EvidenceFormat.WEIGHTS_MANIFEST, in.moment()));
                    continue;
                }
                EvidenceFile f = readers.read(in.path(), in.shown());
                if (f.usable() && CheckpointLoader.isCheckpointFormat(f.format())) {
                    loose.add(new CheckpointLoader.LooseFile(in.path(), in.shown(), in.sourceName(), f.format()));
                }
                if (!f.usable()) {
                    f.warnings().forEach(w -> errors.add(in.shown() + ": " + w));
                    continue;
                }
                f.warnings().forEach(w -> err.println("hbm-ledger: warning: " + in.shown() + ": " + w));
                infos.add(new EvidenceSet.FileInfo(in.sourceName(), f.format(), in.moment()));
                for (Observation o : f.observations()) {
                    Integer rank = in.rank() != null ? in.rank()
                            : RankLabels.rankOf(o.context().process(), o.context().dpRank(), layout.tp(), pipeline, layout.dp());
                    tagged.add(new TaggedObservation(o, in.sourceName(), f.format(), in.moment(), rank, in.device()));
                }
            } catch (EvidenceException e) {
                errors.add(e.getMessage());
            } catch (IOException e) {
                errors.add(in.shown() + ": " + FileProblem.cannotRead(e));
            }
        }
        try {
            // The checkpoint named explicitly wins: --model-dir, then run.json's model_dir, then a
            // manifest among the evidence, then loose checkpoint files among the evidence.
            if (modelDir != null) {
                checkpoint = loader.load(modelDir, modelDir.toString(),
                        runDir == null ? modelDir.toString() : runDir.cite(modelDir));
            } else if (runDir != null && runDir.modelDir() != null) {
                checkpoint = loader.load(runDir.modelDir(), runDir.modelDirShown(), runDir.modelDirCited());
            } else if (checkpoint == null && !loose.isEmpty()) {
                try {
                    checkpoint = loader.loose(loose);
                } catch (EvidenceException e) {
                    // Loose config.json / index files still give their observations; only the
                    // checkpoint lines are left out, and the user is told why.
                    err.println("hbm-ledger: warning: " + e.getMessage() + "; the ledger shows no checkpoint lines");
                }
            }
        } catch (EvidenceException e) {
            errors.add(e.getMessage());
        } catch (IOException e) {
            errors.add((modelDir != null ? modelDir : "the checkpoint") + ": " + FileProblem.cannotRead(e)
                    + (e instanceof java.nio.file.FileSystemException f && f.getFile() != null ? " (" + f.getFile() + ")" : ""));
        }
        if (!errors.isEmpty()) {
            throw new BadInput(String.join(System.lineSeparator() + "hbm-ledger: ", errors)
                    + System.lineSeparator() + "hbm-ledger: no ledger written: fix or remove the files above");
        }
        if (infos.stream().noneMatch(f -> f.format().isDeviceSample() || f.format().family() == EvidenceFormat.Family.VLLM_LOG
                || f.format().family() == EvidenceFormat.Family.MSPROF)) {
            throw new BadInput("nothing to attribute: the run holds no npu-smi sample, vLLM log or msprof export");
        }
        if (tagged.stream().noneMatch(t -> t.o().isBytes()) && msprofItems.isEmpty()) {
            throw new BadInput("nothing to attribute: no file of the run holds a memory figure ("
                    + String.join(", ", infos.stream().map(EvidenceSet.FileInfo::file).toList())
                    + "); add an npu-smi / nvidia-smi sample, a vLLM log with its memory lines, or an msprof export");
        }
        MsprofEvidence msprof = MsprofEvidence.none();
        if (!msprofItems.isEmpty()) {
            try {
                msprof = loadMsprof(msprofItems, runDir);
            } catch (IOException e) {
                throw new BadInput("msprof evidence: " + FileProblem.describe(e) + System.lineSeparator()
                        + "hbm-ledger: no ledger written: fix or remove the files above");
            }
        }
        if (tagged.stream().noneMatch(t -> t.o().isBytes()) && msprof.exports().stream()
                .allMatch(e -> e.summary().series().isEmpty() && e.summary().operators().isEmpty())) {
            // msprof files were named but none held a memory row (header only, damaged, or an
            // export without memory tables): the same refusal as for files without figures
            throw new BadInput("nothing to attribute: no file of the run holds a memory figure ("
                    + String.join(", ", infos.stream().map(EvidenceSet.FileInfo::file).toList())
                    + "; the msprof files hold no memory rows"
                    + (msprof.exports().stream().anyMatch(e -> !e.summary().warnings().isEmpty())
                            ? ": " + String.join("; ", msprof.exports().stream()
                                    .flatMap(e -> e.summary().warnings().stream()).limit(3).toList()) : "")
                    + "); add an npu-smi / nvidia-smi sample, a vLLM log with its memory lines, or an msprof export"
                    + " with npu_mem / npu_module_mem / memory_record data");
        }
        EvidenceSet ev = new EvidenceSet(tagged, infos, layout, checkpoint, msprof, startFailure(runDir));
        Ledger ledger = Attribution.standard().attribute(ev);
        if (runDir != null) {
            ledger = ledger.withCollection(runDir.manifest().status(), runDir.manifest().incompleteReasons());
        }
        String runName = runDir == null ? null : runDir.dir().toString();
        String json = new LedgerJsonWriter().toJson(ledger, layout, runName);
        String shown;
        if (format == OutputFormat.json) {
            shown = json;
        } else {
            StringWriter buf = new StringWriter();
            new LedgerTextWriter(allDevices).write(ledger, layout, runName,
                    runDir == null ? null : runDir.manifest().source(), new PrintWriter(buf));
            shown = buf.toString();
        }
        if (runDir != null && !noWrite) {
            Path report = runDir.dir().resolve("report.json");
            try {
                AtomicFile.write(report, json.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // Exit stays 0: the ledger, the command's answer, is printed whole; report.json is
                // its copy on disk. The warning says why and what an older report.json means.
                err.println("hbm-ledger: warning: report.json not written: " + FileProblem.cannotWrite(report, e) + ". "
                        + (Files.exists(report) ? "The report.json there is from an earlier analysis and was NOT updated. " : "")
                        + "The ledger is printed below (exit 0). To keep the report elsewhere use --format json > FILE;"
                        + " to skip writing it use --no-write; or copy the run directory to a place you may write to.");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(shown);
        out.flush();
        err.flush();
        return 0;
    }

    /** The run's instants (run.json moments, else the ready sample's taken_at; --instant for files) and the msprof summaries. */
    private MsprofEvidence loadMsprof(List<MsprofLoader.Item> items, RunDirectory runDir) throws IOException {
        List<String> warnings = new ArrayList<>();
        Map<String, Long> at;
        String readyFrom = null;
        if (runDir != null) {
            at = MsprofLoader.instants(runDir.manifest().moments(), warnings, "run.json moments");
            if (at.containsKey("ready")) {
                readyFrom = "run.json moments.ready";
            } else {
                for (EvidenceEntry e : runDir.manifest().evidence()) {
                    Optional<Long> t = "ready".equals(e.moment()) ? MsprofLoader.epochUs(e.takenAt()) : Optional.empty();
                    if (t.isPresent()) {
                        at.put("ready", t.get());
                        readyFrom = "taken_at of the ready sample " + e.file() + " in run.json";
                        break;
                    }
                }
            }
        } else {
            at = MsprofLoader.instants(instants, warnings, "--instant");
            readyFrom = at.containsKey("ready") ? "--instant ready" : null;
        }
        return MsprofLoader.load(items, at, readyFrom, runDir != null ? MsprofEvidence.RUN_JSON_READY : "--instant ready=TIME",
                runDir == null ? null : runDir.dir(), warnings);
    }

    /** The layout and serving options a checkpoint is planned under: run.json's deployment or the options. */
    /**
     * A collection that failed before its ready moment: the server never became ready, so the
     * ledger must not be labelled "ready". Null when the run does not say so.
     */
    private static String startFailure(RunDirectory runDir) {
        if (runDir == null || !"failed".equals(runDir.manifest().status())
                || runDir.manifest().moments().containsKey("ready")) {
            return null;
        }
        return "run.json: status failed with no ready moment (phase " + runDir.manifest().phase() + ")";
    }

    private CheckpointLoader checkpointLoader(RunDirectory runDir, Layout layout) {
        Deployment d = runDir == null ? null : runDir.manifest().deployment();
        int p = ppSize(runDir);
        boolean e = d != null ? Boolean.TRUE.equals(d.ep()) : ep;
        Object dt = d == null ? dtype : d.extra().get("dtype");
        String kv = d != null && d.kvCacheDtype() != null ? d.kvCacheDtype() : kvCacheDtype != null ? kvCacheDtype : "auto";
        PlanOptions defaults = PlanOptions.defaults();
        return new CheckpointLoader(new ParallelLayout(layout.tp(), layout.dp(), p, e),
                new PlanOptions(dt instanceof String s ? s : "auto", kv, false, defaults.blockSize()));
    }

    /** Pipeline-parallel size: run.json's deployment, else --pp, else 1. */
    private int ppSize(RunDirectory runDir) {
        Deployment d = runDir == null ? null : runDir.manifest().deployment();
        int p = d != null && d.pp() != null ? d.pp() : pp != null ? pp : 1;
        return Math.max(p, 1);
    }

    /** A file given twice would count its samples twice: refused, naming both places. */
    private static void refuseRepeatedFiles(List<Input> files, RunDirectory runDir) throws BadInput {
        Map<Path, Integer> seen = new LinkedHashMap<>();
        for (int i = 0; i < files.size(); i++) {
            Path key = files.get(i).path().toAbsolutePath().normalize();
            Integer before = seen.putIfAbsent(key, i);
            if (before != null) {
                String where = runDir != null
                        ? runDir.dir().resolve(RunManifest.FILE_NAME) + ": evidence[" + before + "] and evidence[" + i + "]"
                        : "inputs " + (before + 1) + " and " + (i + 1);
                throw new BadInput(where + " name the same file " + files.get(i).shown()
                        + "; list each file once (its samples would otherwise be counted twice)");
            }
        }
    }

    private static List<Input> runInputs(RunDirectory rd) throws BadInput, IOException {
        List<Input> out = new ArrayList<>();
        if (rd.manifest().evidence().isEmpty()) {
            throw new BadInput(rd.dir().resolve(RunManifest.FILE_NAME) + ": the run names no evidence files;"
                    + " add entries to \"evidence\" (see docs/run.schema.json)");
        }
        for (int i = 0; i < rd.manifest().evidence().size(); i++) {
            EvidenceEntry e = rd.manifest().evidence().get(i);
            // an msprof export is a directory; every other kind of evidence is one file
            if (!Files.isRegularFile(rd.resolve(e)) && !MsprofLoader.isExportDir(rd.resolve(e))) {
                throw new BadInput(rd.dir().resolve(RunManifest.FILE_NAME) + ":" + rd.evidenceLine(i) + ": evidence[" + i
                        + "] \"" + e.file() + "\": expected a regular file or an msprof export directory, found "
                        + (Files.isDirectory(rd.resolve(e)) ? "a directory without msprof data"
                                : Files.exists(rd.resolve(e)) ? "a special file" : "nothing")
                        + "; fix the name or remove the entry");
            }
            Moment m = e.moment() == null ? null : Moment.parse(e.moment()).orElseThrow();
            Object dev = e.extra().get("device");
            Integer device = dev instanceof Number n ? n.intValue() : null;
            out.add(new Input(rd.resolve(e), rd.display(e), e.file(), m, e.rank(), device));
        }
        return out;
    }

    /**
     * --instant names one of the run's moments and gives a time with its offset: a typo in the
     * name or a time without offset would otherwise leave the msprof lines without a ready
     * instant and the exit code at 0.
     */
    private void checkInstants() throws BadInput {
        for (Map.Entry<String, String> e : instants.entrySet()) {
            String given = "--instant " + e.getKey() + "=" + e.getValue();
            String accepted = "; expected NAME=TIME with NAME one of the run's moments (" + String.join(", ", RunInstants.NAMES)
                    + ", as in run.json \"moments\") and TIME in " + RunInstants.FORMAT
                    + ", e.g. --instant ready=2026-11-29T21:03:04.120+08:00";
            if (!RunInstants.NAMES.contains(e.getKey())) {
                throw new BadInput(given + ": unknown instant name '" + e.getKey() + "'" + accepted);
            }
            if (RunInstants.epochUs(e.getValue()).isEmpty()) {
                throw new BadInput(given + ": '" + e.getValue() + "' is not a time with an offset" + accepted);
            }
        }
    }

    /** --tp/--dp are counts (>= 1); --devices are device ids (>= 0), one per rank, no repeats. */
    private void checkLayoutOptions() throws BadInput {
        checkInstants();
        if (tp != null && tp < 1) {
            throw new BadInput("--tp " + tp + ": expected the tensor-parallel size, an integer >= 1");
        }
        if (dp != null && dp < 1) {
            throw new BadInput("--dp " + dp + ": expected the data-parallel size, an integer >= 1");
        }
        if (pp != null && pp < 1) {
            throw new BadInput("--pp " + pp + ": expected the pipeline-parallel size, an integer >= 1");
        }
        if (devices != null) {
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (Integer id : devices) {
                if (id == null || id < 0) {
                    throw new BadInput("--devices " + devices + ": expected device ids >= 0"
                            + " (as in ASCEND_RT_VISIBLE_DEVICES), found " + id);
                }
                if (!seen.add(id)) {
                    throw new BadInput("--devices " + devices + ": device " + id + " is listed twice;"
                            + " give each rank's own device, in rank order");
                }
            }
            Layout l = Layout.of(tp, dp, pp, devices, List.of(), null);
            if (devices.size() > l.deploymentRanks()) {
                // devices[i] is rank i's device: a device past the last rank would get a ledger of a rank that does not exist
                throw new BadInput("--devices " + devices.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                        + " lists " + devices.size() + " devices but " + l.sizes() + " = " + l.deploymentRanks()
                        + (l.deploymentRanks() == 1 ? " rank" : " ranks") + " (device i is where rank i ran, so "
                        + devices.subList(l.deploymentRanks(), devices.size()) + " would be ranks that do not exist);"
                        + " give the parallel sizes the server ran with (--tp, --dp, --pp; TP x DP x PP = " + devices.size()
                        + " here) or list only the ranks' devices (--devices "
                        + devices.subList(0, l.deploymentRanks()).stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                        + ")");
            }
        }
    }

    /** A --moment key names an input when both are the same file once made absolute and normalized. */
    private static boolean sameFile(String key, Path input) {
        try {
            return Path.of(key).toAbsolutePath().normalize().equals(input.toAbsolutePath().normalize());
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    private List<Input> fileInputs() throws BadInput, IOException {
        Map<String, Moment> byName = new LinkedHashMap<>();
        for (Map.Entry<String, String> m : moments.entrySet()) {
            Optional<Moment> mo = Moment.parse(m.getValue());
            if (mo.isEmpty()) {
                throw new BadInput("--moment " + m.getKey() + "=" + m.getValue() + ": expected one of " + Moment.names());
            }
            byName.put(m.getKey(), mo.get());
        }
        List<Input> out = new ArrayList<>();
        List<String> matched = new ArrayList<>();
        List<String> matchedDevices = new ArrayList<>();
        for (Path p : inputs) {
            if (Files.isDirectory(p) && !MsprofLoader.isExportDir(p)) {
                throw new BadInput(p + ": a directory among several inputs; give one run directory, or evidence files");
            }
            String shown = p.toString();
            String key = byName.containsKey(shown) ? shown
                    : byName.containsKey(p.getFileName().toString()) ? p.getFileName().toString()
                    : byName.keySet().stream().filter(k -> sameFile(k, p)).findFirst().orElse(null);
            if (key != null) {
                matched.add(key);
            }
            Integer device = null;
            for (Map.Entry<String, Integer> fd : fileDevices.entrySet()) {
                if (fd.getKey().equals(shown) || fd.getKey().equals(p.getFileName().toString()) || sameFile(fd.getKey(), p)) {
                    device = fd.getValue();
                    matchedDevices.add(fd.getKey());
                }
            }
            out.add(new Input(p, shown, shown, key == null ? null : byName.get(key), null, device));
        }
        for (Map.Entry<String, Integer> fd : fileDevices.entrySet()) {
            if (!matchedDevices.contains(fd.getKey())) {
                throw new BadInput("--file-device " + fd.getKey() + "=...: no such file among the inputs " + inputs);
            }
            if (fd.getValue() == null || fd.getValue() < 0) {
                throw new BadInput("--file-device " + fd.getKey() + "=" + fd.getValue() + ": expected a device id >= 0");
            }
        }
        for (String k : byName.keySet()) {
            if (!matched.contains(k)) {
                throw new BadInput("--moment " + k + "=...: no such file among the inputs " + inputs);
            }
        }
        return out;
    }
}
