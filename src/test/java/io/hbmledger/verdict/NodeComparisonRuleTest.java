package io.hbmledger.verdict;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Confidence;
import io.hbmledger.ledger.Units;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Nodes compared by their mean used memory per device; figures worked out by hand. */
class NodeComparisonRuleTest {

    private static NodeFacts node(String name, double... usedGib) {
        List<DeviceFacts> devices = new ArrayList<>();
        for (int i = 0; i < usedGib.length; i++) {
            long bytes = Math.round(usedGib[i] * Units.GIB);
            devices.add(new DeviceFacts(name + "/npu:" + i + "/chip:0", "910B1", null,
                    Figure.bytes("used", bytes, Confidence.MEASURED, null, List.of()), List.of()));
        }
        return new NodeFacts(name, new RunFacts(List.of(), devices, List.of(), RunFacts.Accelerator.NPU));
    }

    @Test
    void theNodeWhoseRanksUseMoreThanItsPeersIsNamed() {
        // means: a 30, b (30.5 + 29.5) / 2 = 30, c 33; c's peers' median (30, 30) = 30: 3 GiB over
        List<Finding> f = Verdict.acrossNodes(List.of(node("a", 30, 30), node("b", 30.5, 29.5), node("c", 33, 33)));

        assertThat(f).singleElement().satisfies(x -> {
            assertThat(x.kind()).isEqualTo(Finding.Kind.NODE_IMBALANCE);
            assertThat(x.devices()).containsExactly("c/npu:0/chip:0", "c/npu:1/chip:0");
            assertThat(x.figure("excess_per_device").orElseThrow().bytes()).isEqualTo(3 * Units.GIB);
            assertThat(x.figure("peers_used_per_device").orElseThrow().bytes()).isEqualTo(30 * Units.GIB);
            assertThat(x.text()).startsWith("node c's ranks use 33");
        });
    }

    @Test
    void aDifferenceWithinOneGibIsNoFinding() {
        // 30.8 - 30 = 0.8 GiB: under the 1 GiB margin
        assertThat(Verdict.acrossNodes(List.of(node("a", 30, 30), node("b", 30.8, 30.8)))).isEmpty();
        // one node alone has no peers
        assertThat(Verdict.acrossNodes(List.of(node("a", 40)))).isEmpty();
    }
}
