package io.hbmledger.collect.nodes.ray;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the nodes of a Ray cluster from the text of Ray's own command-line tool; pure, text in, nodes out.
 *
 * <p>{@link #listNodesJson}: {@code ray list nodes --format json} of Ray's state API (Ray 2.x,
 * {@code ray.util.state.state_cli.output_with_format}: {@code json.dumps} of a list of
 * {@code NodeState}: {@code node_id}, {@code node_ip}, {@code is_head_node} (from Ray 2.3),
 * {@code state} ALIVE or DEAD, {@code node_name}, {@code resources_total}). Where
 * {@code is_head_node} is missing, the head is the node holding the resource
 * {@code node:__internal_head__}; else the head stays unknown (null).
 *
 * <p>{@link #statusText}: {@code ray status -v}, for a Ray without {@code ray list}: the
 * per-node sections {@code Node: ADDRESS} or {@code Node: ADDRESS (NODE_TYPE)} of
 * {@code ray.autoscaler._private.util.get_per_node_breakdown} as Ray 1.x to 2.4 print them
 * (e.g. {@code Node: 10.0.3.87 (ray.head.default)}); a type containing "head" marks the head.
 * Later Rays name the node there by its id, not its address: then no node can be reached and
 * the parser says so.
 */
public final class RayNodesParser {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern NODE_LINE = Pattern.compile("^Node: (\\S+)(?: \\(([^)]*)\\))?\\s*$");
    private static final Pattern ADDRESS = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+");
    private static final Pattern USAGE = Pattern.compile("^\\s+[\\d.]+/([\\d.]+) (NPU|GPU)\\s*$");

    private RayNodesParser() {
    }

    /**
     * Every node in the output, alive or dead, in Ray's order.
     *
     * @throws IllegalArgumentException when the text holds no JSON list of nodes (say what came instead)
     */
    public static List<RayNode> listNodesJson(String text) {
        int start = text.indexOf('[');
        if (start < 0) {
            throw new IllegalArgumentException("expected the JSON list of 'ray list nodes --format json', found: " + firstLine(text));
        }
        JsonNode list;
        try {
            // Ray may print log or warning lines before the list; the list is the rest
            list = JSON.readTree(text.substring(start));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("'ray list nodes --format json' printed no valid JSON list: "
                    + e.getOriginalMessage() + " (from: " + firstLine(text.substring(start)) + ")");
        }
        if (!list.isArray()) {
            throw new IllegalArgumentException("expected a JSON list of nodes, found " + list.getNodeType());
        }
        List<RayNode> nodes = new ArrayList<>();
        int i = 0;
        for (JsonNode n : list) {
            String ip = n.path("node_ip").asText(null);
            if (ip == null || ip.isBlank()) {
                throw new IllegalArgumentException("node " + i + " of 'ray list nodes' has no node_ip: " + n);
            }
            JsonNode resources = n.path("resources_total");
            Boolean head = null;
            if (n.has("is_head_node")) {
                head = n.path("is_head_node").asBoolean();
            } else if (resources.has("node:__internal_head__")) {
                head = true;
            }
            nodes.add(new RayNode(n.path("node_id").asText(null), ip, head, "ALIVE".equals(n.path("state").asText()),
                    accelerators(resources)));
            i++;
        }
        return nodes;
    }

    /**
     * The nodes of {@code ray status -v}: all alive (Ray lists live nodes there), head known only
     * from a node type naming it.
     *
     * @throws IllegalArgumentException when no node section names an address (a Ray that prints
     *     node ids there, or no cluster)
     */
    public static List<RayNode> statusText(String text) {
        List<RayNode> nodes = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        String ip = null;
        Boolean head = null;
        Map<String, Double> acc = new LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            Matcher m = NODE_LINE.matcher(line);
            if (m.matches()) {
                if (ip != null) {
                    nodes.add(new RayNode(null, ip, head, true, acc));
                }
                ip = null;
                acc = new LinkedHashMap<>();
                if (ADDRESS.matcher(m.group(1)).matches()) {
                    ip = m.group(1);
                    head = m.group(2) == null ? null : m.group(2).contains("head");
                } else {
                    ids.add(m.group(1));
                }
                continue;
            }
            Matcher u = USAGE.matcher(line);
            if (ip != null && u.matches()) {
                acc.put(u.group(2), Double.parseDouble(u.group(1)));
            }
        }
        if (ip != null) {
            nodes.add(new RayNode(null, ip, head, true, acc));
        }
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException(ids.isEmpty()
                    ? "expected 'Node: ADDRESS' sections in 'ray status -v', found none (first line: " + firstLine(text) + ")"
                    : "'ray status -v' names the nodes by id (" + ids.get(0) + "...), not by address; this Ray has 'ray list nodes'"
                            + " only with ray[default] installed: install it on the head, or name the nodes with --host / --hostfile");
        }
        return nodes;
    }

    private static Map<String, Double> accelerators(JsonNode resources) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String kind : new String[] {"NPU", "GPU"}) {
            JsonNode v = resources.path(kind);
            if (v.isNumber()) {
                m.put(kind, v.asDouble());
            } else if (v.isTextual() && v.asText().matches("[\\d.]+")) {
                m.put(kind, Double.parseDouble(v.asText()));
            }
        }
        return m;
    }

    private static String firstLine(String text) {
        String s = text.strip();
        int nl = s.indexOf('\n');
        s = nl < 0 ? s : s.substring(0, nl);
        return s.isEmpty() ? "(nothing)" : s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
