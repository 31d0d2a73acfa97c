package io.hbmledger.verdict;

import io.hbmledger.ledger.Confidence;
import java.util.List;
import java.util.Locale;

/**
 * The memory one request at max_model_len needs, worked out once for the what-fits answer and
 * for the advice of the KV findings ("no utilization fits"): the non-KV memory plus that
 * request's KV cache, against the total the engine sees.
 *
 * @param perToken KV bytes per token of one device
 * @param tokens max_model_len
 * @param nonKv the memory the budget holds besides the KV cache
 * @param kv one request's KV cache: perToken x tokens
 * @param need nonKv + kv
 * @param total the total the engine sees
 */
record OneRequest(Figure perToken, long tokens, Figure nonKv, Figure kv, Figure need, Figure total) {

    static OneRequest of(Figure perToken, Figure maxModelLen, Figure nonKv, Figure total) {
        long len = Math.round(maxModelLen.value());
        Figure kv = Figure.bytes("kv_for_one_request", perToken.bytes() * len, atMostInferred(perToken),
                String.format(Locale.ROOT, "%,d B/token x %d tokens", perToken.bytes(), len), perToken.sources());
        return new OneRequest(perToken, len, nonKv, kv, Arith.sum("needed_for_one_request", nonKv, kv),
                total.named("total_seen"));
    }

    /** Whether no utilization serves one request: the need exceeds the whole total. */
    boolean fitsNowhere() {
        return need.bytes() > total.bytes();
    }

    /** Whether the non-KV memory alone exceeds the total. */
    boolean nonKvAlone() {
        return nonKv.bytes() > total.bytes();
    }

    /** A figure worked out from a rate is at best inferred. */
    private static Confidence atMostInferred(Figure f) {
        return f.confidence().ordinal() < Confidence.INFERRED.ordinal() ? Confidence.INFERRED : f.confidence();
    }

    /** The figures in the order the finding lists them. */
    List<Figure> figures(Figure maxModelLen) {
        return List.of(perToken.named("kv_bytes_per_token"), maxModelLen.named("max_model_len"), kv,
                nonKv.named("needed_before_kv"), need, total);
    }
}
