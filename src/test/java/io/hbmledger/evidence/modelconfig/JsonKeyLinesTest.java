package io.hbmledger.evidence.modelconfig;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonKeyLinesTest {

    @Test
    void dottedPathsWithTheirLinesArraysSkipped() throws Exception {
        String json = """
                {
                  "a": 1,
                  "q": {
                    "fmt": "e4m3",
                    "block": [128, 128]
                  },
                  "list": [{"hidden": 2}],
                  "z": null
                }
                """;
        Map<String, Integer> lines = JsonKeyLines.of(json);
        assertThat(lines).containsEntry("a", 2).containsEntry("q", 3).containsEntry("q.fmt", 4)
                .containsEntry("q.block", 5).containsEntry("list", 7).containsEntry("z", 8)
                .doesNotContainKey("list.hidden").doesNotContainKey("hidden");
    }
}
