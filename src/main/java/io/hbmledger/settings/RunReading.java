package io.hbmledger.settings;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.ledger.Attribution;
import io.hbmledger.ledger.EvidenceSet;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.load.BadInputException;
import io.hbmledger.load.EvidenceLoader;
import io.hbmledger.load.LoadRequest;
import io.hbmledger.load.LoadedRun;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import io.hbmledger.verdict.RunFacts;
import io.hbmledger.verdict.RunFactsBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A run directory read as analyze reads it (through {@link EvidenceLoader} and the ledger), with
 * the facts of its vLLM budget and its serving settings (run.json first, then its vLLM logs).
 *
 * @param run the loaded evidence and run directory
 * @param ledger the attributed ledger
 * @param facts the budget facts of its server instances
 * @param settings the serving settings it states
 */
public record RunReading(LoadedRun run, Ledger ledger, RunFacts facts, ServingSettings settings) {

    /**
     * @throws BadInputException when the run gives no ledger (every unusable file named)
     * @throws EvidenceException when run.json is malformed
     * @throws IOException when the directory cannot be read
     */
    public static RunReading read(Path runDir, Consumer<String> warn) throws BadInputException, EvidenceException, IOException {
        LoadedRun run = new EvidenceLoader(warn).load(LoadRequest.of(runDir));
        EvidenceSet ev = run.evidence();
        Ledger ledger = Attribution.standard().attribute(ev);
        RunDirectory dir = run.runDir();
        if (dir != null) {
            ledger = ledger.withCollection(dir.manifest().status(), dir.manifest().incompleteReasons());
        }
        RunFacts facts = RunFactsBuilder.build(ev, ledger, List.of());
        ServingSettings settings = ServingSettings.none();
        if (dir != null) {
            Path json = dir.dir().resolve(RunManifest.FILE_NAME);
            List<String> lines = Files.isRegularFile(json) ? Files.readAllLines(json, StandardCharsets.UTF_8) : List.of();
            settings = DeploymentSettings.of(dir.manifest().deployment(), RunManifest.FILE_NAME, lines);
        }
        for (EvidenceSet.FileInfo f : ev.files()) {
            if (f.format() == EvidenceFormat.VLLM_LOG) {
                // evidence is cited relative to the run directory, as the ledger cites it
                List<String> lines = readLog(dir == null ? Path.of(f.file()) : dir.dir().resolve(f.file()));
                settings = settings.orElse(ServingSettingsParser.parse(f.file(), lines));
            }
        }
        return new RunReading(run, ledger, facts, settings);
    }

    /** The log as lines; bytes that are not UTF-8 are replaced, as the evidence readers do. */
    private static List<String> readLog(Path p) throws IOException {
        String text = new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        return List.of(text.split("\r?\n|\r", -1));
    }
}
