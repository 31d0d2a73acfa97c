package io.hbmledger.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.cli.Main;
import io.hbmledger.ledger.Units;
import io.hbmledger.testing.Chromium;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html opened in headless Chromium, offline: the bundled examples and a SIMULATED TP 2
 * run with msprof (examples/sim-tp2-msprof/make-run.sh over the simulators in sim/). No console
 * message or uncaught error; a screenshot in target/browser; every number the page shows, read
 * back from the DOM after its scripts ran, equals report.json's.
 */
class HtmlInBrowserTest {

    private static final Path SHOTS = Path.of("target/browser");
    private static final Pattern ROW = Pattern.compile("<tr data-device=\"([^\"]+)\">(.*?)</tr>", Pattern.DOTALL);
    private static final Pattern CELL = Pattern.compile(
            "<td class=\"num[^\"]*\" data-component=\"([^\"]+)\" data-confidence=\"([^\"]+)\"(?: data-bytes=\"(-?\\d+)\")?");

    @TempDir
    Path tmp;

    @Test
    void theConsoleCheckCatchesAnError() throws Exception {
        // the check below must be able to fail: a page with an error is caught
        Path bad = tmp.resolve("bad.html");
        Files.writeString(bad, "<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>");
        assertThat(Chromium.find().dumpDom(bad).consoleMessages()).anySatisfy(m -> assertThat(m).contains("undefinedFunction"));
    }

    @Test
    void bundledExamples() throws Exception {
        Chromium chromium = Chromium.find();
        for (String example : List.of("a3-llama3.1-8b-eagle3", "910b2c-deepseek-r1-tp16-oom")) {
            Path run = copy(Path.of("examples", example), tmp.resolve(example));
            analyze(run);
            Chromium.Page page = check(chromium, run, example);
            assertThat(page.dom()).contains("id=\"timeline\"");
        }
    }

    @Test
    void simulatedRunShowsBarsAndTimeline() throws Exception {
        Chromium chromium = Chromium.find();
        Path run = tmp.resolve("sim-run");
        ProcessBuilder pb = new ProcessBuilder("bash", "examples/sim-tp2-msprof/make-run.sh", run.toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("make-run.log").toFile());
        // the simulators run from the test's classes: no jar build
        pb.environment().put("HBM_SIM_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("PORT", String.valueOf(freePort()));
        Process p = pb.start();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("make-run.sh finished").isTrue();
        assertThat(p.exitValue()).as(Files.readString(tmp.resolve("make-run.log"))).isZero();
        analyze(run);
        Chromium.Page page = check(chromium, run, "sim-tp2-msprof");
        // the timeline: npu-smi and msprof lines for both devices, the run's moments and the peaks marked
        assertThat(count(page.dom(), "<polyline class=\"tl-line\"")).isEqualTo(4);
        for (String mark : List.of("baseline", "ready", "load_start", "load_end", "peak")) {
            assertThat(page.dom()).contains("data-mark=\"" + mark + "\"");
        }

        // issue 16: the same SIMULATED run as both nodes of a multi-node run directory (as collect
        // --host A --host B lays it out): the page groups the devices by node, every number still
        // equal to report.json's, each node's timeline lines on one axis
        Path cluster = tmp.resolve("sim-2-nodes");
        for (String node : List.of("node-a", "node-b")) {
            copy(run, cluster.resolve("nodes").resolve(node));
        }
        Files.writeString(cluster.resolve("run.json"), new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(Map.of(
                "schema", "hbm-ledger/run/1", "run_id", "sim-2-nodes", "mode", "multinode", "status", "complete", "phase", "done",
                "nodes", List.of(Map.of("name", "node-a", "host", "root@a:22", "dir", "nodes/node-a", "status", "complete"),
                        Map.of("name", "node-b", "host", "root@b:22", "dir", "nodes/node-b", "status", "complete")))));
        analyze(cluster);
        Chromium.Page nodes = check(chromium, cluster, "sim-2-nodes");
        String dom = nodes.dom();
        assertThat(dom).contains("<table id=\"nodes\">", "<tr data-node=\"node-a\">", "<tr data-node=\"node-b\">",
                "<tbody data-node=\"node-a\">", "<tbody data-node=\"node-b\">");
        assertThat(dom.indexOf("data-device=\"node-a/npu:5/chip:0\"")).isPositive().isLessThan(dom.indexOf("<text class=\"node\" data-node=\"node-b\""));
        // the bars of a node come under its heading, labelled as the node names its devices
        assertThat(dom).containsPattern("data-node=\"node-b\"[^>]*>node node-b</text><g class=\"bar\" data-device=\"node-b/npu:4/chip:0\">"
                + "<text[^>]*>npu:4/chip:0</text>");
        assertThat(count(dom, "<polyline class=\"tl-line\"")).isEqualTo(8);
        assertThat(dom).contains("<p id=\"deployment\">2 nodes, 4 devices; on node node-a: my-llama");
        // every node's server log has the same name: its findings say which node's
        assertThat(dom).contains("[node-a/serve.log]", "[node-b/serve.log]");
        // the nodes' ranks are global: node-b's devices hold ranks 2 and 3 (TP 2, placed second)
        assertThat(dom).containsPattern("<tr data-node=\"node-b\"><td>node-b</td><td>complete</td><td class=\"num\">2</td><td>2,3</td>");
    }

    private static void analyze(Path run) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] args = {"analyze", run.toString()};
        var cl = Main.newCommandLine(args);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute(args)).as(err.toString()).isZero();
    }

    /** Opens report.html, takes a screenshot, compares the numbers with report.json. */
    private static Chromium.Page check(Chromium chromium, Path run, String name) throws Exception {
        Path html = run.resolve("report.html");
        JsonNode report = new ObjectMapper().readTree(Files.readString(run.resolve("report.json"), StandardCharsets.UTF_8));
        Chromium.Page page = chromium.dumpDom(html);
        assertThat(page.consoleMessages()).as("console of %s", html).isEmpty();
        Files.createDirectories(SHOTS);
        Path png = SHOTS.resolve(name + ".png");
        chromium.screenshot(html, png, 1600);
        assertThat(Files.size(png)).as(png.toString()).isGreaterThan(10_000);

        String dom = page.dom();
        assertThat(dom).contains("<h2>Findings</h2>");
        assertThat(dom).contains("id=\"status\" class=\"status status-" + report.get("status").asText() + "\"");
        assertThat(report.get("findings")).allSatisfy(f -> assertThat(dom).contains(f.get("kind").asText()));
        Map<String, String> rows = new HashMap<>();
        Matcher r = ROW.matcher(dom);
        while (r.find()) {
            rows.put(r.group(1), r.group(2));
        }
        assertThat(rows).hasSize(report.get("devices").size());
        for (JsonNode d : report.get("devices")) {
            String device = d.get("device").asText();
            // one bar per device, its segments adding up to what is drawn
            assertThat(dom).contains("<g class=\"bar\" data-device=\"" + device + "\"");
            Map<String, Long> expected = new HashMap<>();
            Map<String, Boolean> known = new HashMap<>();
            put(expected, known, "capacity", d.get("capacity_bytes"));
            put(expected, known, "used", d.get("used_bytes"));
            put(expected, known, "residual", d.get("residual_bytes"));
            for (JsonNode e : d.get("entries")) {
                put(expected, known, e.get("component").asText(), e.get("bytes"));
            }
            String row = rows.get(device);
            assertThat(row).as(device).isNotNull();
            Matcher c = CELL.matcher(row);
            int cells = 0;
            while (c.find()) {
                String component = c.group(1);
                int end = row.indexOf("</td>", c.end());
                String shown = row.substring(row.lastIndexOf('>', end) + 1, end);
                if (component.equals("free")) {
                    continue;
                }
                cells++;
                assertThat(known).as(device + " " + component).containsKey(component);
                if (known.get(component)) {
                    assertThat(Long.parseLong(c.group(3))).as(device + " " + component).isEqualTo(expected.get(component));
                    assertThat(shown.replace("(", "").replace(")", "")).as(device + " " + component)
                            .isEqualTo(Units.gibNumber(expected.get(component)));
                } else {
                    assertThat(c.group(3)).isNull();
                    assertThat(shown).as(device + " " + component + " (unknown is never 0)").isEqualTo("?");
                }
            }
            assertThat(cells).isEqualTo(expected.size());
        }
        return page;
    }

    private static void put(Map<String, Long> bytes, Map<String, Boolean> known, String name, JsonNode v) {
        known.put(name, v != null && !v.isNull());
        bytes.put(name, v == null || v.isNull() ? null : v.asLong());
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static Path copy(Path from, Path to) throws IOException {
        return io.hbmledger.testing.TestFiles.copyTree(from, to);
    }
}
