package io.hbmledger.collect.nodes.ray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Ray's own output, as printed in Ray's issue threads (each test names its thread). Ray prints
 * {@code ray list nodes --format json} with Python's {@code json.dumps} of the list of NodeState
 * records (ray/util/state/state_cli.py, output_with_format): one line, ", " and ": " separators.
 */
class RayNodesParserTest {

    /**
     * The worker row is the one of ray-project/ray#64617 ({@code ray list nodes}, 2026: node
     * 057ae870..., 10.121.130.4, IS_HEAD_NODE False, ALIVE, labels ray.io/node-group); the head row
     * is the node of ray-project/ray#33553 ({@code ray get nodes}: ecbe11d3..., 10.0.25.201), marked
     * head as Ray 2.3+ marks it; the DEAD third node and the NPU counts are ours.
     */
    static final String LIST_JSON = "[{\"node_id\": \"ecbe11d355cc23416ac42f530b854b6ab19671dafda928c281d29fd8\", \"node_ip\": \"10.0.25.201\","
            + " \"is_head_node\": true, \"state\": \"ALIVE\", \"state_message\": null, \"node_name\": \"10.0.25.201\","
            + " \"resources_total\": {\"CPU\": 8.0, \"NPU\": 8.0, \"memory\": \"18.196 GiB\", \"node:10.0.25.201\": 1.0,"
            + " \"node:__internal_head__\": 1.0, \"object_store_memory\": \"9.098 GiB\"}, \"labels\": {\"ray.io/node-id\":"
            + " \"ecbe11d355cc23416ac42f530b854b6ab19671dafda928c281d29fd8\"}, \"start_time_ms\": 1679424616474, \"end_time_ms\": 0},"
            + " {\"node_id\": \"057ae8704b49ce135e8f6665d66f44c6a81572f7e9d6475cd507ab9f\", \"node_ip\": \"10.121.130.4\","
            + " \"is_head_node\": false, \"state\": \"ALIVE\", \"state_message\": null, \"node_name\": \"10.121.130.4\","
            + " \"resources_total\": {\"CPU\": 4.0, \"NPU\": 8.0, \"memory\": \"8.000 GiB\", \"node:10.121.130.4\": 1.0,"
            + " \"object_store_memory\": \"2.366 GiB\"}, \"labels\": {\"ray.io/node-group\": \"worker-group\"}},"
            + " {\"node_id\": \"657f8716bddefdf732e885c095d5aaaa0000000000000000000000ff\", \"node_ip\": \"10.121.130.5\","
            + " \"is_head_node\": false, \"state\": \"DEAD\", \"state_message\": \"Unexpected termination: health check failed\","
            + " \"node_name\": \"10.121.130.5\", \"resources_total\": {\"CPU\": 4.0}, \"labels\": {}}]";

    @Test
    void listNodesJsonGivesEveryNodeWithItsAddressStateHeadAndNpus() {
        List<RayNode> nodes = RayNodesParser.listNodesJson("2026-07-08 15:56:54,531 WARNING api.py:1 -- some warning\n" + LIST_JSON + "\n");

        assertThat(nodes).extracting(RayNode::ip).containsExactly("10.0.25.201", "10.121.130.4", "10.121.130.5");
        assertThat(nodes).extracting(RayNode::head).containsExactly(true, false, false);
        assertThat(nodes).extracting(RayNode::alive).containsExactly(true, true, false);
        assertThat(nodes.get(0).nodeId()).isEqualTo("ecbe11d355cc23416ac42f530b854b6ab19671dafda928c281d29fd8");
        assertThat(nodes.get(1).accelerators()).isEqualTo(Map.of("NPU", 8.0));
        assertThat(nodes.get(2).accelerators()).isEmpty();
    }

    /** Before Ray 2.3 NodeState had no is_head_node: the head is the one with node:__internal_head__ (ray#29607). */
    @Test
    void withoutIsHeadNodeTheHeadResourceNamesTheHead() {
        String old = LIST_JSON.replace("\"is_head_node\": true, ", "").replace("\"is_head_node\": false, ", "");

        List<RayNode> nodes = RayNodesParser.listNodesJson(old);

        assertThat(nodes).extracting(RayNode::head).containsExactly(true, null, null);
    }

    @Test
    void somethingElseThanTheListIsRefusedSayingWhatCame() {
        assertThatThrownBy(() -> RayNodesParser.listNodesJson("No resource in the cluster\n"))
                .hasMessageContaining("found: No resource in the cluster");
        assertThatThrownBy(() -> RayNodesParser.listNodesJson("[{\"node_id\": \"x\", \"state\": \"ALIVE\"}]"))
                .hasMessageContaining("has no node_ip");
    }

    /** {@code ray status -v} of ray-project/ray#35411 (Ray 2.4, autoscaler v1): "Node: ADDRESS (TYPE)" per node. */
    static final String STATUS_V_24 = String.join("\n",
            "======== Autoscaler status: 2023-04-04 19:21:25.239417 ========",
            "GCS request time: 0.000927s",
            "Node Provider non_terminated_nodes time: 0.066487s",
            "",
            "Node status",
            "---------------------------------------------------------------",
            "Healthy:",
            " 1 ray.head.default",
            " 2 ray.worker.default",
            "Pending:",
            " (no pending nodes)",
            "Recent failures:",
            " (no failures)",
            "",
            "Resources",
            "---------------------------------------------------------------",
            "Total Usage:",
            " 0.0/6.0 CPU",
            " 0B/15.10GiB memory",
            " 1.87GiB/6.06GiB object_store_memory",
            "",
            "Total Demands:",
            " (no resource demands)",
            "",
            "Node: 10.0.3.87 (ray.head.default)",
            " Usage:",
            "  0.0/2.0 CPU",
            "  0B/3.90GiB memory",
            "  1.25GiB/1.95GiB object_store_memory",
            " Is Idle:",
            "  False",
            "",
            "Node: 10.0.2.228 (ray.worker.default)",
            " Usage:",
            "  0.0/2.0 CPU",
            "  0B/5.60GiB memory",
            "  319.87MiB/2.07GiB object_store_memory",
            " Is Idle:",
            "  False",
            "");

    @Test
    void statusVerboseGivesTheAddressesAndTheHeadFromTheNodeType() {
        List<RayNode> nodes = RayNodesParser.statusText(STATUS_V_24);

        assertThat(nodes).extracting(RayNode::ip).containsExactly("10.0.3.87", "10.0.2.228");
        assertThat(nodes).extracting(RayNode::head).containsExactly(true, false);
        assertThat(nodes).allMatch(RayNode::alive);
    }

    /** PR ray-project/ray#36894's example: "Node: 192.168.1.1" with no type, and a GPU usage line. */
    @Test
    void statusVerboseWithoutTypeLeavesTheHeadUnknownAndReadsTheGpus() {
        String text = "Total Usage:\n 2/2 GPU\n\nNode: 192.168.1.1\n Usage:\n  0.1/1 AcceleratorType:V100\n  5.0/20.0 CPU\n"
                + "  0.7/1 GPU\n  1.00/4.000 GiB memory\n";

        List<RayNode> nodes = RayNodesParser.statusText(text);

        assertThat(nodes).singleElement().satisfies(n -> {
            assertThat(n.ip()).isEqualTo("192.168.1.1");
            assertThat(n.head()).isNull();
            assertThat(n.accelerators()).isEqualTo(Map.of("GPU", 1.0));
        });
    }

    /**
     * Plain {@code ray status} of a manually started cluster (baidu/vLLM-Kunlun#361, Ray 2.55) names
     * nodes by id only, as "Node: NODE_ID" in -v of later Rays (ray/autoscaler/_private/util.py,
     * get_per_node_breakdown): no address to reach, said so.
     */
    @Test
    void statusNamingNodesByIdIsRefusedWithWhatToDo() {
        String plain = "======== Autoscaler status: 2026-06-03 16:16:34.468449 ========\nNode status\n"
                + "---------------------------------------------------------------\nActive:\n"
                + " 1 node_0b178449bc88e4476c5cc5d5080e86f17e428e04c01fb5773c5d9a0d\nPending:\n (no pending nodes)\n";
        assertThatThrownBy(() -> RayNodesParser.statusText(plain)).hasMessageContaining("found none");
        String byId = plain + "\nNode: 0b178449bc88e4476c5cc5d5080e86f17e428e04c01fb5773c5d9a0d\n Usage:\n  0.0/8.0 GPU\n";
        assertThatThrownBy(() -> RayNodesParser.statusText(byId)).hasMessageContaining("names the nodes by id")
                .hasMessageContaining("--hostfile");
    }
}
