package io.hbmledger.collect.kube;

import java.util.ArrayList;
import java.util.List;

/**
 * The user's own {@code kubectl}, with their kubeconfig and context: {@code --kubeconfig} and
 * {@code --context} only when given, so that by default KUBECONFIG and the current context rule,
 * as for every other kubectl command they run.
 *
 * @param program the kubectl to run (a path, or a name looked up on PATH)
 * @param kubeconfig null for kubectl's own choice (KUBECONFIG, ~/.kube/config)
 * @param context null for the kubeconfig's current context
 * @param env laid over the collector's environment for kubectl itself (e.g. KUBECONFIG); empty for none
 */
public record Kubectl(String program, String kubeconfig, String context, java.util.Map<String, String> env) {

    public Kubectl {
        env = java.util.Map.copyOf(env);
    }

    /** The user's kubectl from PATH with their own kubeconfig and context, unless given. */
    public static Kubectl of(String kubeconfig, String context) {
        return new Kubectl("kubectl", kubeconfig, context, java.util.Map.of());
    }

    /** kubectl with the global options, then {@code args}. */
    List<String> command(List<String> args) {
        List<String> c = new ArrayList<>();
        c.add(program);
        if (kubeconfig != null) {
            c.add("--kubeconfig=" + kubeconfig);
        }
        if (context != null) {
            c.add("--context=" + context);
        }
        c.addAll(args);
        return c;
    }

    /** {@code kubectl exec -i -n NS POD [-c C] -- argv}: stdin kept open for tar streams and the guard. */
    List<String> exec(KubeTarget t, List<String> argv) {
        List<String> a = new ArrayList<>(List.of("exec", "-i", "-n", t.namespace(), t.pod()));
        if (t.container() != null) {
            a.addAll(List.of("-c", t.container()));
        }
        a.add("--");
        a.addAll(argv);
        return command(a);
    }
}
