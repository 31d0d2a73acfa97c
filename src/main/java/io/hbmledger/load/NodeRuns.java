package io.hbmledger.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.run.RunManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A multi-node run directory (run.json {@code mode: multinode}, written by {@code collect} over
 * several hosts): each node's own run in {@code nodes/NAME/}, loaded as a single-node run. The
 * node's data-parallel rank, from which its workers' global ranks follow, is the command's
 * {@code --data-parallel-rank} (vLLM's multi-node data parallel) or else its place in the list.
 */
public final class NodeRuns {

    private static final Pattern DP_RANK = Pattern.compile("--data-parallel-rank[= ](\\d+)|--data-parallel-start-rank[= ](\\d+)");

    /**
     * One node's loaded run.
     *
     * @param node the node's name in the run
     * @param firstRank the global rank of the node's local rank 0: DP rank x ranks per node (TP x PP)
     */
    public record NodeRun(String node, int firstRank, LoadedRun run) {
    }

    /** The loaded nodes, and the nodes whose run could not be read (each with why). */
    public record Loaded(Path dir, RunManifest top, List<NodeRun> nodes, List<String> missing) {
    }

    private NodeRuns() {
    }

    /** True when {@code dir} is a run directory whose run.json says mode multinode. */
    public static boolean isMultiNode(Path dir) {
        Path json = dir.resolve("run.json");
        if (!Files.isDirectory(dir) || !Files.isRegularFile(json)) {
            return false;
        }
        try {
            return "multinode".equals(new ObjectMapper().readTree(json.toFile()).path("mode").asText());
        } catch (IOException unreadable) {
            return false;   // the single-node path says what is wrong with it
        }
    }

    /**
     * @throws BadInputException when no node holds a run that can be analysed
     */
    public static Loaded load(Path dir, Consumer<String> warn) throws IOException, BadInputException {
        JsonNode top = new ObjectMapper().readTree(dir.resolve("run.json").toFile());
        List<NodeRun> nodes = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        int index = 0;
        for (JsonNode n : top.path("nodes")) {
            String name = n.path("name").asText();
            Path sub = dir.resolve(n.path("dir").asText("nodes/" + name)).normalize();
            if (!sub.startsWith(dir.normalize()) || !Files.isRegularFile(sub.resolve("run.json"))) {
                missing.add(name + ": no run in " + dir.relativize(sub) + " (status " + n.path("status").asText("unknown") + ")");
                index++;
                continue;
            }
            try {
                LoadedRun run = new EvidenceLoader(w -> warn.accept(name + ": " + w)).load(LoadRequest.of(sub));
                RunManifest m = run.runDir().manifest();
                int perNode = positive(m.deployment().tp()) * positive(m.deployment().pp());
                nodes.add(new NodeRun(name, dpRank(m, index) * perNode, run));
            } catch (BadInputException | EvidenceException e) {
                missing.add(name + ": " + e.getMessage());
            }
            index++;
        }
        if (nodes.isEmpty()) {
            throw new BadInputException(dir + "/run.json: a multi-node run, but no node holds a run that can be analysed: "
                    + String.join("; ", missing));
        }
        missing.forEach(m -> warn.accept("node left out: " + m));
        RunManifest manifest;
        try {
            manifest = io.hbmledger.run.RunDirectory.open(dir).manifest();
        } catch (io.hbmledger.run.RunFileException e) {
            throw new BadInputException(e.getMessage());
        }
        return new Loaded(dir, manifest, List.copyOf(nodes), List.copyOf(missing));
    }

    private static int dpRank(RunManifest m, int index) {
        Object cmd = m.deployment().extra().get("command_recorded");
        Matcher dp = DP_RANK.matcher(cmd == null ? "" : cmd.toString());
        if (dp.find()) {
            return Integer.parseInt(dp.group(1) != null ? dp.group(1) : dp.group(2));
        }
        return index;
    }

    private static int positive(Integer v) {
        return v == null || v < 1 ? 1 : v;
    }
}
