package io.hbmledger.cli;

import io.hbmledger.collect.ArgumentException;
import io.hbmledger.collect.kube.KubeHost;
import io.hbmledger.collect.kube.KubeTarget;
import io.hbmledger.collect.kube.Kubectl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The hosts of a multi-node collection as the user names them: {@code --host} repeated,
 * {@code --hostfile} (one USER@HOST[:PORT] a line, # comments), {@code --kube NS/POD[:C]} repeated,
 * or {@code --kube-selector NS/LABEL=VALUE} (every pod of a deployment).
 */
final class NodeTargets {

    private NodeTargets() {
    }

    /** SSH targets from --host and --hostfile, in the order given. */
    static List<String> sshTargets(List<String> hosts, Path hostfile) {
        List<String> all = new ArrayList<>(hosts);
        if (hostfile != null) {
            try {
                for (String line : Files.readAllLines(hostfile)) {
                    String t = line.replaceFirst("#.*", "").strip();
                    if (!t.isEmpty()) {
                        all.add(t);
                    }
                }
            } catch (IOException e) {
                throw new ArgumentException("--hostfile " + hostfile + ": cannot read it (" + e.getMessage()
                        + "); expected one USER@HOST[:PORT] a line");
            }
        }
        return all;
    }

    /** Pods from --kube and --kube-selector NAMESPACE/SELECTOR, in the order given (a selector's pods sorted by name). */
    static List<KubeTarget> pods(List<String> kube, String selector, Kubectl kubectl) throws IOException {
        List<KubeTarget> all = new ArrayList<>();
        kube.forEach(k -> all.add(KubeTarget.parse(k)));
        if (selector != null) {
            int slash = selector.indexOf('/');
            if (slash < 1) {
                throw new ArgumentException("--kube-selector " + selector + ": expected NAMESPACE/SELECTOR, e.g. serving/app=vllm");
            }
            List<KubeTarget> found = KubeHost.select(kubectl, selector.substring(0, slash), selector.substring(slash + 1), null);
            if (found.isEmpty()) {
                throw new ArgumentException("--kube-selector " + selector + ": no pod matches; check the namespace, the labels"
                        + " and the kubectl context");
            }
            all.addAll(found);
        }
        return all;
    }
}
