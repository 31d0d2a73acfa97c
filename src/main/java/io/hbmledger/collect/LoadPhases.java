package io.hbmledger.collect;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hbmledger.run.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The phases that measure a ready server, shared by standalone and attach: ready samples, the load
 * (sampled while it runs, written to workload.json) and the after samples. The caller has entered
 * phase "ready"; each phase is recorded done only once its samples are on disk.
 */
final class LoadPhases {

    private final Collection c;
    private final Sampler sampler;

    LoadPhases(Collection c, Sampler sampler) {
        this.c = c;
        this.sampler = sampler;
    }

    void run(ServerClient client) throws IOException {
        RunJournal journal = c.journal();
        ExecutionRecord execution = c.measured.record();
        journal.moment("ready", RunJournal.now());
        List<Long> pids = execution.serverPids() == null ? List.copyOf(c.executions.members(execution)) : execution.serverPids();
        journal.deployment(d -> d.withServerPids(pids));
        journal.save();
        sampler.samples("ready", c.settings.readySamples());
        c.done("ready");

        c.phase("load");
        String model = client.servedModel(Duration.ofSeconds(10));
        if (model == null) {
            model = execution.model();
        }
        List<Workload.Result> results = loadWhileSampling(client, model);
        journal.moment("load_end", RunJournal.now());
        writeWorkload(results, model);
        // requests cut by an interrupt are the collector's doing, not the server's: not failures
        long failed = results.stream().filter(r -> !r.ok() && !r.cancelled()).count();
        if (failed > 0 && !c.interrupted()) {
            journal.reason(failed + " of " + results.size() + " load requests failed (see workload.json)");
        }
        journal.save();
        c.checkNotInterrupted("interrupted during phase load");
        c.done("load");

        c.phase("after");
        journal.moment("after", RunJournal.now());
        sampler.samples("after", c.settings.afterSamples());
        c.done("after");
    }

    private List<Workload.Result> loadWhileSampling(ServerClient client, String model) throws IOException {
        Sampler.WhileLoaded during = sampler.new WhileLoaded();
        c.journal().moment("load_start", RunJournal.now());
        Thread t = new Thread(during, "hbm-ledger-load-sampler");
        t.setDaemon(true);
        t.start();
        GpuLoopSampler loop = c.smi instanceof NvidiaSmi gpu ? new GpuLoopSampler(c, gpu) : null;
        try {
            if (loop != null) {
                loop.start(c.settings.loadInterval(), c.settings.workload().deadline());
            }
            Workload w = new Workload(client, c.settings.workload());
            c.measured.load(w);
            return w.run(model);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectException("interrupted during the load", e);
        } finally {
            during.stop();
            try {
                t.join(c.settings.npuSmiTimeout().toMillis() + 5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (loop != null) {
                loop.stopAndKeep();
            }
        }
    }

    private void writeWorkload(List<Workload.Result> results, String model) throws IOException {
        ObjectNode w = Json.MAPPER.createObjectNode();
        w.put("schema", "hbm-ledger/workload/1");
        Workload.Spec ws = c.settings.workload();
        ObjectNode spec = w.putObject("spec");
        spec.put("api", ws.api());
        spec.put("requests", ws.requests());
        spec.put("concurrency", ws.concurrency());
        spec.put("input_tokens", ws.inputTokens());
        spec.put("output_tokens", ws.outputTokens());
        spec.put("stream_idle_timeout_s", ws.idleTimeout().toMillis() / 1000.0);
        spec.put("deadline_s", ws.deadline().toMillis() / 1000.0);
        w.put("model", model);
        w.set("results", Json.MAPPER.valueToTree(results));
        AtomicFile.write(c.journal().runDir().resolve("workload.json"),
                c.redactor().text(Json.MAPPER.writeValueAsString(w)).getBytes(StandardCharsets.UTF_8));
        // Not in the evidence list: it says what load ran, not how much memory anything took.
        long ok = results.stream().filter(Workload.Result::ok).count();
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("file", "workload.json");
        summary.put("requests", results.size());
        summary.put("ok", ok);
        summary.put("cancelled", results.stream().filter(Workload.Result::cancelled).count());
        summary.put("input_tokens", ws.inputTokens());
        summary.put("output_tokens", ws.outputTokens());
        summary.put("concurrency", ws.concurrency());
        c.journal().extra("workload", summary);
    }
}
