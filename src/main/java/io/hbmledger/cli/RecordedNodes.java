package io.hbmledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.Redactor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hosts of a multi-node run and how they were reached, as the top run.json keeps them
 * ({@code nodes[].host}, {@code connection}), so that {@code collect --resume RUN_DIR} needs no
 * host typed again. Secret values of {@code --remote-env} (names like *_TOKEN, *_API_KEY) are kept
 * as {@code ***}: resume asks for them again rather than writing them to disk.
 */
final class RecordedNodes {

    private static final String KUBE = "kube:";

    private RecordedNodes() {
    }

    /** The options that reached the nodes, for run.json {@code connection}. */
    static Map<String, Object> connection(CollectCommand o) {
        Map<String, Object> m = new LinkedHashMap<>();
        put(m, "identity", o.identity == null ? null : o.identity.toAbsolutePath().toString());
        put(m, "known_hosts", o.knownHosts == null ? null : o.knownHosts.toAbsolutePath().toString());
        put(m, "remote_state_dir", o.remoteStateDir);
        Map<String, String> env = new LinkedHashMap<>();
        o.remoteEnv.forEach((k, v) -> env.put(k, secret(k, v) ? Redactor.MASK : v));
        if (!env.isEmpty()) {
            m.put("remote_env", env);
        }
        if (o.keepRemote) {
            m.put("keep_remote", true);
        }
        put(m, "kubeconfig", o.kubeconfig);
        put(m, "kube_context", o.kubeContext);
        return m;
    }

    /**
     * Fills {@code o} from the run.json of the multi-node run {@code runDir}: its hosts and pods in
     * node order, and each connection option the user did not give again.
     *
     * @throws ArgumentException when run.json cannot be read, names no node, or kept a secret the user must give again
     */
    static void fill(CollectCommand o, Path runDir) {
        JsonNode top;
        try {
            top = new ObjectMapper().readTree(runDir.resolve("run.json").toFile());
        } catch (IOException e) {
            throw new ArgumentException("--resume " + runDir + ": cannot read its run.json (" + e.getMessage() + ")");
        }
        List<String> ssh = new ArrayList<>();
        List<String> kube = new ArrayList<>();
        for (JsonNode n : top.path("nodes")) {
            String host = n.path("host").asText("");
            if (host.isEmpty()) {
                throw new ArgumentException("--resume " + runDir + ": node " + n.path("name").asText("?") + " in run.json names no host;"
                        + " give the hosts again with --host or --kube, in the order of the first collection");
            }
            (host.startsWith(KUBE) ? kube : ssh).add(host.startsWith(KUBE) ? host.substring(KUBE.length()) : host);
        }
        if (ssh.isEmpty() && kube.isEmpty()) {
            throw new ArgumentException("--resume " + runDir + ": run.json names no node");
        }
        o.sshTargets = ssh;
        o.kube = kube;
        JsonNode c = top.path("connection");
        if (o.identity == null && c.hasNonNull("identity")) {
            o.identity = Path.of(c.get("identity").asText());
        }
        if (o.knownHosts == null && c.hasNonNull("known_hosts")) {
            o.knownHosts = Path.of(c.get("known_hosts").asText());
        }
        if (o.remoteStateDir == null && c.hasNonNull("remote_state_dir")) {
            o.remoteStateDir = c.get("remote_state_dir").asText();
        }
        if (o.kubeconfig == null && c.hasNonNull("kubeconfig")) {
            o.kubeconfig = c.get("kubeconfig").asText();
        }
        if (o.kubeContext == null && c.hasNonNull("kube_context")) {
            o.kubeContext = c.get("kube_context").asText();
        }
        o.keepRemote |= c.path("keep_remote").asBoolean(false);
        c.path("remote_env").fields().forEachRemaining(e -> {
            if (o.remoteEnv.containsKey(e.getKey())) {
                return;
            }
            if (Redactor.MASK.equals(e.getValue().asText())) {
                throw new ArgumentException("--resume " + runDir + ": the first collection gave --remote-env " + e.getKey()
                        + ", a secret run.json does not keep; give --remote-env " + e.getKey() + "=VALUE again");
            }
            o.remoteEnv.put(e.getKey(), e.getValue().asText());
        });
    }

    private static boolean secret(String name, String value) {
        return new Redactor().hasSecret(name + "=" + value)
                || name.matches("(?i).*(api[-_]?key|token|secret|password|passwd|credentials?).*");
    }

    private static void put(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }
}
