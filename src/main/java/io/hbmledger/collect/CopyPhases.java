package io.hbmledger.collect;

import io.hbmledger.evidence.vllmlog.VllmLogReader;
import io.hbmledger.run.AtomicFile;
import io.hbmledger.run.RunManifest.Deployment;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The phases that save what the execution left once it stopped, shared by every mode: msprof
 * export, the copy of the runtime directory (server log, msprof output) and the static model files.
 * Each is recorded done only once its files are in the run directory.
 */
final class CopyPhases {

    private final Collection c;

    CopyPhases(Collection c) {
        this.c = c;
    }

    /** Export (when the execution ran under msprof), then copy: a copy after an export holds its CSV. */
    void exportAndCopy(boolean withMsprof) throws IOException {
        RunJournal journal = c.journal();
        ExecutionRecord execution = c.measured.record();
        if (withMsprof) {
            c.phase("export");
            String dir = execution.runtimeDir() + "/" + execution.msprofOutput();
            // msprof --export=on --output=<dir>: "Profiling数据导出" of the CANN profiling guide;
            // dir may be the PROF_XXX directory or its parent.
            CommandResult r = c.host.run(List.of("msprof", "--export=on", "--output=" + dir), Map.of(), c.settings.exportTimeout());
            journal.moment("export", RunJournal.now());
            if (r.timedOut()) {
                journal.reason("msprof --export did not finish within " + c.settings.exportTimeout().toSeconds()
                        + " s and was killed: msprof evidence missing");
            } else if (r.exitCode() != 0) {
                journal.reason("msprof --export exited " + r.exitCode() + ": " + c.redactor().text(StartFailure.lastLine(r.stderrText())));
            }
            journal.save();
            c.done("export");
        }
        c.phase("copy");
        copyRuntime();
        if (withMsprof) {
            List<String> csv = msprofExports();
            if (csv.stream().noneMatch(f -> f.endsWith(".csv"))) {
                journal.reason("no msprof CSV after export in " + execution.runtimeDir() + "/" + execution.msprofOutput());
            }
        }
        journal.save();
        c.done("copy");
        // only here, with the execution stopped and the copy recorded done: never under attach
        c.host.discardCopied(execution.runtimeDir()).ifPresent(c.out::println);
    }

    /**
     * Copies the runtime directory into {@code execution/}: fetched whole into a partial directory
     * first, so a copy cut short never replaces an earlier complete one.
     */
    void copyRuntime() throws IOException {
        RunJournal journal = c.journal();
        ExecutionRecord execution = c.measured.record();
        Path target = journal.runDir().resolve("execution");
        Path tmp = journal.runDir().resolve(".execution.partial");
        deleteTree(tmp);
        c.host.fetchDirectory(execution.runtimeDir(), tmp, c.settings.copyTimeout());
        maskSecrets(tmp);
        if (!Files.exists(tmp.resolve(ExecutionRecord.FILE))) {
            // a remote runtime directory has no record: it is kept in the local state directory
            AtomicFile.write(tmp.resolve(ExecutionRecord.FILE), Json.MAPPER.writeValueAsBytes(c.executions.store().get(execution.id())));
        }
        deleteTree(target);
        Files.move(tmp, target);
        String taken = RunJournal.now();
        journal.moment("copy", taken);
        Path log = target.resolve(execution.log());
        if (Files.exists(log)) {
            journal.evidence("execution/" + execution.log(), "startup", taken,
                    "server log of execution " + execution.id() + " (stdout and stderr, all ranks), copied from " + execution.host(),
                    Map.of("execution_id", execution.id()));
            DebugLevelFigures.missing(VllmLogReader.parse(log)).ifPresent(journal::reason);
        } else {
            journal.reason("the execution's log " + execution.log() + " was not found in its runtime directory");
        }
        msprofExports();
        journal.save();
    }

    /** Secrets leave no trace in the run: text files holding one are rewritten with it masked. */
    private void maskSecrets(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".log") || name.endsWith(".json") || name.endsWith(".txt")) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    if (c.redactor().hasSecret(text)) {
                        AtomicFile.write(f, c.redactor().text(text).getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (MalformedInputException ignored) {
            // binary file with a text-like name: left as produced
        }
    }

    /** Adds every exported msprof CSV / SQLite file of the copied runtime directory to the evidence list. */
    private List<String> msprofExports() throws IOException {
        RunJournal journal = c.journal();
        ExecutionRecord execution = c.measured.record();
        List<String> found = new ArrayList<>();
        if (execution.msprofOutput() == null) {
            return found;
        }
        Path dir = journal.runDir().resolve("execution").resolve(execution.msprofOutput());
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                String n = f.getFileName().toString();
                if (n.endsWith(".csv") || n.endsWith(".db")) {
                    String rel = journal.runDir().relativize(f).toString();
                    // no moment: an msprof hardware-memory export is a time series over the whole execution
                    journal.evidence(rel, null, null, "msprof export of execution " + execution.id()
                            + " (time series over the whole execution)");
                    found.add(rel);
                }
            }
        }
        return found;
    }

    /** config.json, safetensors headers and the weights manifest of the served model. */
    void staticFiles(String model, String workDir) throws IOException {
        RunJournal journal = c.journal();
        c.phase("static");
        if (model == null) {
            journal.reason("no model path in the command: config.json and safetensors headers not saved");
            journal.save();
            c.done("static");
            return;
        }
        String dir = model;
        if (!dir.startsWith("/") && workDir != null) {
            dir = workDir + "/" + model;
        }
        List<String> saved = ModelFiles.save(c.host, dir, journal, c.redactor());
        if (saved.isEmpty()) {
            journal.reason("no config.json or *.safetensors in '" + c.redactor().text(model)
                    + "' on " + c.host.name() + " (a hub name, not a directory?): static evidence missing");
        } else {
            journal.deployment(d -> new Deployment(d.model(), "model", d.accelerator(), d.tp(),
                    d.dp(), d.pp(), d.ep(), d.devices(), d.kvCacheDtype(), d.gpuMemoryUtilization(), d.serverPids(), d.extra()));
        }
        journal.save();
        c.done("static");
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
