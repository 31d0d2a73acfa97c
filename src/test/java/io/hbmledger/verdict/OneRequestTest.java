package io.hbmledger.verdict;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.ledger.Confidence;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One request's need, worked out once for what_fits and the KV findings' advice. Figures of vllm
 * #13882 (case vllm-13882-rtx4060-8gb-negative-kv, worked in its case.md): 57,344 B/token x 4096
 * tokens = 234,881,024 B of KV; 6.65 GiB needed before it; 8.00 GiB total.
 */
class OneRequestTest {

    private static final long GIB = 1L << 30;

    private static OneRequest of(long nonKv, long total) {
        return OneRequest.of(Figure.bytes("kv_bytes_per_token", 57_344, Confidence.REPORTED, null, List.of()),
                Figure.value("max_model_len", 4096, Confidence.REPORTED, null, List.of()),
                Figure.bytes("needed_before_kv", nonKv, Confidence.REPORTED, null, List.of()),
                Figure.bytes("total_seen", total, Confidence.REPORTED, null, List.of()));
    }

    @Test
    void theNeedOfOne4096TokenRequest() {
        long nonKv = Math.round(6.65 * GIB);
        OneRequest one = of(nonKv, 8 * GIB);
        assertThat(one.kv().bytes()).isEqualTo(234_881_024L);          // 57,344 x 4096
        assertThat(one.kv().confidence()).isEqualTo(Confidence.INFERRED); // a reported rate times a length: inferred, no surer
        assertThat(one.need().bytes()).isEqualTo(nonKv + 234_881_024L);
        assertThat(one.fitsNowhere()).isFalse();                          // 6.87 GiB of 8.00
        assertThat(one.figures(Figure.value("max_model_len", 4096, Confidence.REPORTED, null, List.of())))
                .extracting(Figure::name).containsExactly("kv_bytes_per_token", "max_model_len", "kv_for_one_request",
                        "needed_before_kv", "needed_for_one_request", "total_seen");
    }

    @Test
    void noUtilizationFitsWhenTheNeedPassesTheTotal() {
        // 6.65 GiB + 0.22 GiB > 6.80 GiB; the non-KV memory alone does not
        OneRequest tight = of(Math.round(6.65 * GIB), Math.round(6.80 * GIB));
        assertThat(tight.fitsNowhere()).isTrue();
        assertThat(tight.nonKvAlone()).isFalse();
        assertThat(of(Math.round(6.65 * GIB), 6 * GIB).nonKvAlone()).isTrue();
    }
}
