package io.hbmledger.verdict;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The findings of a run, errors first: each rule answers one question users ask (why was my
 * start refused, why is my KV cache negative, what else holds this card, what fits). The rules
 * read the same facts and never each other's results, so their order does not matter.
 */
public final class Verdict {

    private Verdict() {
    }

    /**
     * Ranks that share a line without a worker label (one engine's refusal, its budget) give the
     * same finding each: said once, with all their devices.
     */
    private static List<Finding> merged(List<Finding> all) {
        java.util.Map<String, Finding> byText = new java.util.LinkedHashMap<>();
        for (Finding f : all) {
            String key = f.kind() + "\u0000" + f.instance() + "\u0000" + f.text();
            Finding seen = byText.get(key);
            if (seen == null) {
                byText.put(key, f);
            } else {
                java.util.LinkedHashSet<String> devices = new java.util.LinkedHashSet<>(seen.devices());
                devices.addAll(f.devices());
                byText.put(key, new Finding(seen.kind(), seen.severity(), List.copyOf(devices), seen.instance(),
                        seen.text(), seen.figures(), seen.advice()));
            }
        }
        return new ArrayList<>(byText.values());
    }

    public static List<Finding> findings(RunFacts run) {
        List<Finding> all = new ArrayList<>();
        all.addAll(StartRefusedRule.apply(run));
        all.addAll(LeftoverStartRule.apply(run));
        all.addAll(KvBudgetRule.apply(run));
        all.addAll(ProfilingCheckRule.apply(run));
        all.addAll(OomRule.apply(run));
        all.addAll(CoTenantsRule.apply(run));
        all.addAll(RankMismatchRule.apply(run));
        all.addAll(OtherTenantRule.apply(run));
        all.addAll(OutsideBudgetRule.apply(run));
        all.addAll(BelowBudgetRule.apply(run));
        all.addAll(WhatFitsRule.apply(run));
        all.addAll(HeadroomRule.apply(run));
        all.sort(Comparator.comparing(Finding::severity));
        return List.copyOf(merged(all));
    }

    /**
     * The findings that compare the nodes of a multi-node run (each node's own findings come from
     * {@link #findings} on its facts).
     */
    public static List<Finding> acrossNodes(List<NodeFacts> nodes) {
        List<Finding> all = new ArrayList<>(NodeComparisonRule.apply(nodes));
        all.sort(Comparator.comparing(Finding::severity));
        return List.copyOf(all);
    }
}
