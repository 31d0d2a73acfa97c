package io.hbmledger.ledger;

import io.hbmledger.evidence.msprof.MsprofSummary;
import io.hbmledger.evidence.msprof.MsprofValueAt;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The msprof / torch_npu profiler data of a run, as summaries read by the loading layer (load), so the
 * attribution rules stay free of I/O. Series carry values at the run's named instants
 * ({@code ready}, {@code load_start}, ... from run.json {@code moments}) and at each device's
 * peak ({@link io.hbmledger.evidence.msprof.MsprofPeakMoments}).
 *
 * @param exports one entry per profiling output (a {@code PROF_*} or {@code *_ascend_pt} folder,
 *     or loose files of one folder)
 * @param momentsUs the run's instants in microseconds since the Unix epoch, by name
 * @param readyFrom where the ready instant came from ({@code run.json moments.ready}, ...), null
 *     when the run gives none
 * @param readyHow how this kind of input gives the ready instant ({@code run.json moments.ready}
 *     for a run directory, {@code --instant ready=TIME} for evidence files), for the lines that
 *     lack it
 * @param baseDir prefix (the run directory) stripped from file names in sources, or null
 * @param warnings problems met while reading (files that could not be read, bad instants)
 */
public record MsprofEvidence(List<Export> exports, Map<String, Long> momentsUs, String readyFrom,
                             String readyHow, String baseDir, List<String> warnings) {

    /** How a run directory gives the ready instant. */
    public static final String RUN_JSON_READY = "run.json moments.ready";

    public MsprofEvidence {
        readyHow = readyHow == null ? RUN_JSON_READY : readyHow;
        exports = List.copyOf(exports);
        momentsUs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(momentsUs));
        warnings = List.copyOf(warnings);
    }

    public static MsprofEvidence none() {
        return new MsprofEvidence(List.of(), Map.of(), null, RUN_JSON_READY, null, List.of());
    }

    /** True when the run named any msprof export. */
    public boolean present() {
        return !exports.isEmpty();
    }

    public Optional<Long> readyUs() {
        return Optional.ofNullable(momentsUs.get("ready"));
    }

    /**
     * One profiling output.
     *
     * @param name the folder or file as named in the run
     * @param kind {@code msprof}, {@code torch_npu} or {@code files}
     * @param rankIds rank / dp / tp ids from the folder name (torch_npu), may be empty
     * @param summary what the files say
     */
    public record Export(String name, String kind, Map<String, Integer> rankIds, MsprofSummary summary) {
        public Export {
            rankIds = Map.copyOf(rankIds);
        }
    }

    /** A file name as the user should see it: relative to the run directory when inside it. */
    public String shown(String file) {
        if (file == null || baseDir == null || baseDir.isEmpty()) {
            return file;
        }
        String prefix = baseDir.endsWith("/") ? baseDir : baseDir + "/";
        return file.startsWith(prefix) ? file.substring(prefix.length()) : file;
    }

    /** The source line of a value at an instant. */
    public Source source(MsprofValueAt v) {
        return source(v.file(), v.row(), v.text());
    }

    /**
     * A data row of an msprof table (CSV data row, header excluded, or SQLite rowid): shown as
     * {@code file row N}, never as the file's line N.
     */
    public Source source(String file, long row, String text) {
        return new Source(shown(file), (int) Math.min(Integer.MAX_VALUE, row), text, true);
    }
}
