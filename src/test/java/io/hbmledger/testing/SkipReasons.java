package io.hbmledger.testing;

import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints, at the end of a test run, every test that was skipped (disabled) or aborted (an
 * assumption failed: no corpus, no Chromium, ...) with its reason, so that a green run says what
 * it did not check instead of hiding it in the surefire reports. Registered through
 * META-INF/services.
 */
public final class SkipReasons implements TestExecutionListener {

    private final List<String> skipped = new ArrayList<>();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        skipped.add(test.getDisplayName() + ": " + reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            skipped.add(test.getLegacyReportingName() + ": "
                    + result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (!skipped.isEmpty()) {
            System.out.println("[skipped] " + skipped.size() + " test(s) not run, and why:");
            skipped.forEach(s -> System.out.println("[skipped]   " + s));
        }
    }
}
