package io.hbmledger.evidence.paste;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.ServingPrograms;
import java.util.ArrayList;
import java.util.List;

/**
 * Serving programs other than vLLM that a person names in prose ({@link ServingPrograms}): vllm-ascend
 * #8809's "问题在mis-tei侧，镜像回退到mis-tei:7.2.RC1-800I-A2-aarch64后解决" names the embedding server
 * that shares the 910B4 cards. Such a program holds memory of its own on a card it shares, and the
 * findings name it where they speak of what else must fit. One {@code other_service} observation per
 * program, where it is named most fully (with its image tag or version), the name as written.
 */
final class ServiceStatement {

    private ServiceStatement() {
    }

    static List<Observation> read(List<String> lines, int first, int last) {
        java.util.Map<String, Observation> byProgram = new java.util.LinkedHashMap<>();
        for (int line = first; line <= last; line++) {
            for (ServingPrograms.Named n : ServingPrograms.in(lines.get(line - 1))) {
                Observation o = Observation.value(Quantity.OTHER_SERVICE, 1, line, n.written())
                        .in(Context.builder().component(n.program()).build());
                // "mis-tei侧 ... mis-tei:7.2.RC1-800I-A2-aarch64": the name with its image tag says more
                byProgram.merge(n.program(), o, (was, now) -> now.text().length() > was.text().length()
                        && now.text().startsWith(was.text()) ? now : was);
            }
        }
        return new ArrayList<>(byProgram.values());
    }
}
