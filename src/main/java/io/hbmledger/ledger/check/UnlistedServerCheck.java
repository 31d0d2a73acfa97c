package io.hbmledger.ledger.check;

import io.hbmledger.ledger.Check;
import io.hbmledger.ledger.DeviceDraft;
import io.hbmledger.ledger.TaggedObservation;
import io.hbmledger.ledger.Units;
import java.util.List;

/**
 * When the server pids are given, a process outside them whose name looks like a serving process
 * (vllm, python, a Ray worker) is most likely a worker whose pid was left out (Ray and the V1
 * engine start their own processes): it is counted under other_processes, and this check warns so
 * the split is not trusted blindly.
 */
public final class UnlistedServerCheck {

    static final String NAME = "unlisted_server_processes";

    private UnlistedServerCheck() {
    }

    public static void apply(DeviceDraft d, List<TaggedObservation> others) {
        List<TaggedObservation> alike = others.stream().filter(t -> servingName(t.o().context().processName())).toList();
        if (alike.isEmpty()) {
            return; // nothing to say: no check line, so ledgers without the case stay as they were
        }
        StringBuilder b = new StringBuilder();
        long bytes = 0;
        for (TaggedObservation t : alike) {
            b.append(b.length() == 0 ? "" : ", ").append("pid ").append(t.o().context().pid()).append(' ')
                    .append(t.o().context().processName()).append(" (").append(t.source().shortForm()).append(')');
            bytes += t.o().bytes();
        }
        d.check(new Check(NAME, Check.Status.WARN, b + ": named like a serving process (vllm, python, ray) but not among"
                + " the server pids, so its " + Units.gib(bytes) + " is counted as other_processes; if it is a worker"
                + " of this server, add its pid (--server-pid, deployment.server_pids)"));
    }

    /** A name a serving process may have: a hint for the warning only, never an attribution. */
    private static boolean servingName(String name) {
        String n = name == null ? "" : name.toLowerCase(java.util.Locale.ROOT);
        return n.contains("vllm") || n.contains("python") || n.contains("ray");
    }
}
