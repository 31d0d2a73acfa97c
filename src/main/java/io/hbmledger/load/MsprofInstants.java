package io.hbmledger.load;

import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunInstants;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The run's instants at which msprof series are read: run.json {@code moments} (else the ready
 * sample's {@code taken_at}) for a run directory, {@code --instant} for evidence files.
 *
 * @param momentsUs microseconds since the Unix epoch, by name ({@code ready}, {@code load_start}, ...)
 * @param readyFrom where the ready instant came from, for the report; null when there is none
 * @param readyHow how this kind of input gives the ready instant, for lines without one
 * @param warnings instants that were not times with an offset, and so not used
 */
record MsprofInstants(Map<String, Long> momentsUs, String readyFrom, String readyHow, List<String> warnings) {

    /** How evidence files give the ready instant. */
    static final String INSTANT_READY = "--instant ready=TIME";

    /** The instants of a run directory. */
    static MsprofInstants of(RunDirectory runDir, List<String> warnings) {
        Map<String, Long> at = parse(runDir.manifest().moments(), warnings, "run.json moments");
        String readyFrom = null;
        if (at.containsKey("ready")) {
            readyFrom = "run.json moments.ready";
        } else {
            for (EvidenceEntry e : runDir.manifest().evidence()) {
                Optional<Long> t = "ready".equals(e.moment()) ? RunInstants.epochUs(e.takenAt()) : Optional.empty();
                if (t.isPresent()) {
                    at.put("ready", t.get());
                    readyFrom = "taken_at of the ready sample " + e.file() + " in run.json";
                    break;
                }
            }
        }
        return new MsprofInstants(at, readyFrom, io.hbmledger.ledger.MsprofEvidence.RUN_JSON_READY, warnings);
    }

    /** The instants given with {@code --instant NAME=TIME}. */
    static MsprofInstants ofOptions(Map<String, String> instants, List<String> warnings) {
        Map<String, Long> at = parse(instants, warnings, "--instant");
        return new MsprofInstants(at, at.containsKey("ready") ? "--instant ready" : null, INSTANT_READY, warnings);
    }

    /**
     * Parses instants in ISO-8601 with an offset (run.json {@code moments}) or an {@code Instant}
     * in UTC; a bad one becomes a warning.
     */
    private static Map<String, Long> parse(Map<String, String> iso, List<String> warnings, String where) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : iso.entrySet()) {
            Optional<Long> us = RunInstants.epochUs(e.getValue());
            if (us.isPresent()) {
                out.put(e.getKey(), us.get());
            } else {
                warnings.add(where + " " + e.getKey() + " = \"" + e.getValue()
                        + "\" is not " + RunInstants.FORMAT + "; not used");
            }
        }
        return out;
    }
}
