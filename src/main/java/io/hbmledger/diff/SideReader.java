package io.hbmledger.diff;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Entry;
import io.hbmledger.ledger.Source;
import io.hbmledger.load.BadInputException;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import io.hbmledger.settings.DeploymentSettings;
import io.hbmledger.settings.RunReading;
import io.hbmledger.settings.ServingSettings;
import io.hbmledger.verdict.Fact;
import io.hbmledger.verdict.Figure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads one side of a diff: a run directory (through the ledger, as analyze does) or a
 * report.json written by analyze ({@code hbm-ledger/report/1}); for a report.json, the settings
 * are those of the run.json beside it, when there is one.
 */
public final class SideReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SideReader() {
    }

    /**
     * @throws BadInputException when the input is neither a run directory nor a report.json (the file named)
     */
    public static Side read(Path p, Consumer<String> warn) throws BadInputException, EvidenceException, IOException {
        if (Files.isDirectory(p)) {
            return fromRun(p.toString(), RunReading.read(p, warn));
        }
        if (!Files.isRegularFile(p)) {
            throw new BadInputException(p + ": no such run directory or report.json; expected a run directory (run.json) or a"
                    + " report.json written by hbm-ledger analyze");
        }
        JsonNode r;
        try {
            r = JSON.readTree(Files.readString(p, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new BadInputException(p + ": not JSON (" + e.getMessage().split("\n")[0] + "); expected a report.json written by"
                    + " hbm-ledger analyze (hbm-ledger/report/1)");
        }
        if (r == null || !r.path("schema").asText().startsWith("hbm-ledger/report/")) {
            throw new BadInputException(p + ": schema is '" + (r == null ? "" : r.path("schema").asText()) + "'; expected a report.json"
                    + " written by hbm-ledger analyze (hbm-ledger/report/1), or a run directory");
        }
        return fromReport(p, r);
    }

    static Side fromRun(String name, RunReading r) {
        List<Side.Device> devices = new ArrayList<>();
        for (DeviceLedger d : r.ledger().devices()) {
            Map<String, Side.Amount> m = new LinkedHashMap<>();
            m.put("capacity", amount(d.capacity()));
            m.put("used", amount(d.used()));
            for (Entry e : d.entries()) {
                m.putIfAbsent(e.component(), new Side.Amount(e.bytes(), e.confidence().jsonName(),
                        e.sources().isEmpty() ? null : e.sources().get(0).shortForm()));
            }
            devices.add(new Side.Device(d.device(), d.deviceId(), m));
        }
        Figure total = r.facts().servers().stream().map(s -> s.get(Fact.TOTAL_SEEN)).filter(java.util.Optional::isPresent)
                .map(java.util.Optional::get).findFirst().orElse(null);
        return new Side(name, devices, r.settings(), total == null ? null : total.bytes(),
                total == null || total.sources().isEmpty() ? null : total.sources().get(0).shortForm());
    }

    private static Side.Amount amount(DeviceLedger.Amount a) {
        return new Side.Amount(a == null ? null : a.bytes(), a == null ? "unknown" : a.confidence().jsonName(),
                a == null || a.source() == null ? null : a.source().shortForm());
    }

    private static Side fromReport(Path p, JsonNode r) throws IOException, EvidenceException {
        List<Side.Device> devices = new ArrayList<>();
        for (JsonNode d : r.path("devices")) {
            Map<String, Side.Amount> m = new LinkedHashMap<>();
            m.put("capacity", new Side.Amount(num(d.get("capacity_bytes")), d.path("capacity_confidence").asText("unknown"), null));
            m.put("used", new Side.Amount(num(d.get("used_bytes")), d.path("used_confidence").asText("unknown"), null));
            for (JsonNode e : d.path("entries")) {
                JsonNode src = e.path("sources").path(0);
                m.putIfAbsent(e.path("component").asText(), new Side.Amount(num(e.get("bytes")), e.path("confidence").asText("unknown"),
                        src.isMissingNode() ? null : new Source(src.path("file").asText(), src.path("line").asInt(),
                                src.hasNonNull("text") ? src.get("text").asText() : null, src.path("data_row").asBoolean(false))
                                .shortForm()));
            }
            devices.add(new Side.Device(d.path("device").asText(), d.hasNonNull("device_id") ? d.get("device_id").asInt() : null, m));
        }
        ServingSettings settings = ServingSettings.none();
        Path dir = p.toAbsolutePath().getParent();
        if (dir != null && Files.isRegularFile(dir.resolve(RunManifest.FILE_NAME))) {
            try {
                RunDirectory run = RunDirectory.open(dir);
                settings = DeploymentSettings.of(run.manifest().deployment(), RunManifest.FILE_NAME,
                        Files.readAllLines(dir.resolve(RunManifest.FILE_NAME), StandardCharsets.UTF_8));
            } catch (io.hbmledger.run.RunFileException e) {
                settings = ServingSettings.none(); // a report.json stands on its own; a bad run.json beside it only loses the settings
            }
        }
        return new Side(p.toString(), devices, settings, null, null);
    }

    private static Long num(JsonNode n) {
        return n == null || n.isNull() || !n.isNumber() ? null : n.asLong();
    }
}
