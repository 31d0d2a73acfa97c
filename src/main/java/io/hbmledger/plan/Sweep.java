package io.hbmledger.plan;

import java.util.List;

/**
 * One setting varied over values, a plan for each.
 *
 * @param setting the setting's name as on the command line ({@code gpu-memory-utilization}, ...)
 * @param rows one plan per value, in the order given
 */
public record Sweep(String setting, List<Row> rows) {

    public Sweep {
        rows = List.copyOf(rows);
    }

    /** The settings a sweep may vary. */
    public static final List<String> SETTINGS = List.of("gpu-memory-utilization", "max-model-len", "max-num-seqs",
            "max-num-batched-tokens", "kv-cache-dtype", "tp");

    public record Row(String value, Plan plan) {
    }
}
