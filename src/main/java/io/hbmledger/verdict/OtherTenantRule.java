package io.hbmledger.verdict;

import static io.hbmledger.verdict.Arith.gib;

import java.util.ArrayList;
import java.util.List;

/**
 * Processes on a device that the evidence does not tie to the server: each is named with its
 * pid and name. A process is the server's only when the run says so (pids in the log,
 * {@code --server-pid}, the collect record), never because it is called python or vllm: a
 * second vLLM instance on the same card is exactly the process that must show here.
 */
final class OtherTenantRule {

    /**
     * vLLM's process titles: its prefix (VLLM_PROCESS_NAME_PREFIX, "VLLM" by default) and "::",
     * e.g. VLLM::Worker_TP1 or VLLM::EngineCore, as nvidia-smi and npu-smi list them.
     */
    private static final java.util.regex.Pattern VLLM_TITLE = java.util.regex.Pattern.compile("^VLLM::\\w");

    private OtherTenantRule() {
    }

    static List<Finding> apply(RunFacts run) {
        List<Finding> out = new ArrayList<>();
        for (DeviceFacts d : run.devices()) {
            List<DeviceFacts.ProcessFacts> others = d.processes().stream().filter(p -> !p.server()).toList();
            if (others.isEmpty()) {
                continue;
            }
            List<Figure> figures = new ArrayList<>();
            StringBuilder names = new StringBuilder();
            long sum = 0;
            boolean allKnown = true;
            for (DeviceFacts.ProcessFacts p : others) {
                Figure f = p.bytes().named("process_" + p.pid());
                figures.add(f);
                // npu-smi leaves the name blank for some processes (vllm-ascend #312's pid 641248): no "null"
                names.append(names.length() == 0 ? "" : ", ").append("pid ").append(p.pid())
                        .append(p.name() == null || p.name().isBlank() ? " without a name" : " " + p.name())
                        // a serving program of its own (text-embeddings-router, ollama): another service, not a rank
                        .append(io.hbmledger.evidence.ServingPrograms.process(p.name())
                                .map(n -> ", " + n.program() + ", another serving program").orElse(""))
                        .append(f.known() ? " (" + gib(f) + ")" : " (amount unknown)");
                if (f.known()) {
                    sum += f.bytes();
                } else {
                    allKnown = false;
                }
            }
            boolean serverNamed = d.processes().stream().anyMatch(DeviceFacts.ProcessFacts::server);
            boolean beforeStart = others.stream().allMatch(DeviceFacts.ProcessFacts::beforeStart);
            String text = beforeStart
                    // only the idle sample lists them: they held the memory before the server came (fresh-user finding:
                    // their memory was counted as the driver's, with a warning in --detail only)
                    ? d.device() + " was not idle before the server started: the idle sample lists "
                            + (others.size() == 1 ? "a process" : others.size() + " processes") + " on it, " + names
                            + ". That memory is another process's, not the driver's: the ledger counts it under"
                            + " other_processes and leaves it out of driver_baseline; no later sample lists processes, so"
                            + " whether it still runs is not shown."
                    : d.device() + " also holds " + (others.size() == 1 ? "a process" : others.size() + " processes")
                    + " not tied to the server by the evidence: " + names + "."
                    + (serverNamed ? "" : notNamed(run.serverPids()));
            List<String> advice = new ArrayList<>();
            advice.add(beforeStart
                    ? "Stop " + (others.size() == 1 ? "that process" : "those processes") + " before starting the server, or"
                            + " lower gpu_memory_utilization so that the server's share of the total and "
                            + (allKnown ? "the " + io.hbmledger.ledger.Units.gib(sum) : "the memory") + " held by "
                            + (others.size() == 1 ? "it" : "them") + " fit on the device together; a sample taken while the"
                            + " server runs, with its process table, shows whether " + (others.size() == 1 ? "it still holds" : "they still hold")
                            + " it."
                    : (serverNamed || run.serverPids().isEmpty()
                    ? "Name the server's pids (--server-pid, or a log that prints them)"
                    : "Give the server's pids as this table lists them (--server-pid; from a container, the host's pids)")
                    + " to separate it from other tenants"
                    + (allKnown ? "; the others hold " + io.hbmledger.ledger.Units.gib(sum) + "." : "."));
            List<String> vllmNamed = others.stream().filter(p -> p.name() != null && VLLM_TITLE.matcher(p.name()).find())
                    .map(p -> "pid " + p.pid() + " " + p.name()).toList();
            if (!vllmNamed.isEmpty()) {
                advice.add(String.join(", ", vllmNamed) + (vllmNamed.size() == 1 ? " is" : " are")
                        + " named as vLLM names its own processes: a rank of this server that its log does not name"
                        + " (give the pid with --server-pid), or another vLLM server on the card. The name cannot"
                        + " tell which.");
            }
            out.add(new Finding(Finding.Kind.OTHER_TENANT, Finding.Severity.WARN, List.of(d.device()), null, text,
                    figures, advice));
        }
        return out;
    }

    /**
     * Why no row is the server's. When the log names the server's pids and none is in the table,
     * "no evidence names the server's own pids" was wrong (fresh-user finding): the ledger's
     * note says the same as this sentence.
     */
    private static String notNamed(List<Long> serverPids) {
        if (serverPids.isEmpty()) {
            return " No evidence names the server's own pids, so none is counted as the server's; a second server"
                    + " instance would show here.";
        }
        return " None of the server's pids that the evidence names (" + serverPids.stream().map(String::valueOf)
                .collect(java.util.stream.Collectors.joining(", ")) + ") is in this table: a container shows other pids"
                + " than the host, or the server was not running when the table was taken; so none is counted as the"
                + " server's.";
    }
}
