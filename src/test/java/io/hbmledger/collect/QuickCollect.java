package io.hbmledger.collect;

import java.util.LinkedHashMap;
import java.util.Map;

/** The collect options of the interrupt tests: one sample per moment, two short requests, short stop. */
public final class QuickCollect {

    private QuickCollect() {
    }

    /** Option to value, in order; a test changes the one that makes its phase last. */
    public static Map<String, String> options() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("--baseline-samples", "1");
        o.put("--ready-samples", "1");
        o.put("--after-samples", "1");
        o.put("--sample-interval", "0.2");
        o.put("--load-interval", "0.2");
        o.put("--requests", "2");
        o.put("--concurrency", "2");
        o.put("--input-tokens", "8");
        o.put("--output-tokens", "4");
        o.put("--stop-timeout", "3");
        o.put("--export-timeout", "60");
        return o;
    }
}
