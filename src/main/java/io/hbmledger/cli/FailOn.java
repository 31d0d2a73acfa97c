package io.hbmledger.cli;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceLedger;
import io.hbmledger.ledger.Ledger;
import io.hbmledger.verdict.Finding;
import java.util.List;

/** {@code analyze --fail-on}: how bad a run must be for a CI job to fail on it. */
enum FailOn {
    failed, incomplete, warn;

    boolean met(Ledger ledger, List<Finding> findings) {
        if (ledger.status() == Ledger.Status.FAILED || has(findings, Finding.Severity.ERROR)) {
            return true;
        }
        if (this == failed) {
            return false;
        }
        if (ledger.status() == Ledger.Status.INCOMPLETE) {
            return true;
        }
        return this == warn && (has(findings, Finding.Severity.WARN) || checksWarn(ledger));
    }

    private static boolean has(List<Finding> findings, Finding.Severity s) {
        return findings.stream().anyMatch(f -> f.severity() == s);
    }

    private static boolean checksWarn(Ledger ledger) {
        for (DeviceLedger d : ledger.devices()) {
            if (d.checks().stream().anyMatch(c -> c.status() == Check.Status.WARN || c.status() == Check.Status.FAIL)) {
                return true;
            }
        }
        return false;
    }
}
