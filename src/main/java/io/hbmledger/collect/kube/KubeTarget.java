package io.hbmledger.collect.kube;

import io.hbmledger.collect.ArgumentException;

/**
 * A pod (and container) to collect in, as {@code --kube NAMESPACE/POD[:CONTAINER]} names it.
 *
 * @param container null for the pod's default container
 */
public record KubeTarget(String namespace, String pod, String container) {

    private static final String NAME = "[a-z0-9]([-a-z0-9.]*[a-z0-9])?";

    /** @throws ArgumentException for anything but NAMESPACE/POD[:CONTAINER] with Kubernetes names */
    public static KubeTarget parse(String text) {
        String[] nsRest = text.split("/", 2);
        if (nsRest.length != 2) {
            throw new ArgumentException("--kube " + text + ": expected NAMESPACE/POD[:CONTAINER], e.g. --kube serving/vllm-0:vllm");
        }
        String[] podContainer = nsRest[1].split(":", 2);
        KubeTarget t = new KubeTarget(nsRest[0], podContainer[0], podContainer.length == 2 ? podContainer[1] : null);
        for (String part : new String[] {t.namespace, t.pod, t.container}) {
            if (part != null && !part.matches(NAME)) {
                throw new ArgumentException("--kube " + text + ": '" + part + "' is not a Kubernetes name (lower-case letters,"
                        + " digits, '-' and '.')");
            }
        }
        return t;
    }

    @Override
    public String toString() {
        return namespace + "/" + pod + (container == null ? "" : ":" + container);
    }
}
