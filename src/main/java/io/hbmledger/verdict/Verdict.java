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

    public static List<Finding> findings(RunFacts run) {
        List<Finding> all = new ArrayList<>();
        all.addAll(StartRefusedRule.apply(run));
        all.addAll(KvBudgetRule.apply(run));
        all.addAll(OomRule.apply(run));
        all.addAll(CoTenantsRule.apply(run));
        all.addAll(RankMismatchRule.apply(run));
        all.addAll(OtherTenantRule.apply(run));
        all.addAll(OutsideBudgetRule.apply(run));
        all.addAll(WhatFitsRule.apply(run));
        all.addAll(HeadroomRule.apply(run));
        all.sort(Comparator.comparing(Finding::severity));
        return List.copyOf(all);
    }
}
