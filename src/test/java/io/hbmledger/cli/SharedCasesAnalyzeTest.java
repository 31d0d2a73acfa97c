package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbmledger.testing.Cases;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 10's measure: {@code analyze} on each shared case's own evidence (every file but
 * case.md, no flag the user's text does not give) says what the worked answer in case.md says.
 * Every expected figure is the case's, worked out there from the user's lines.
 */
class SharedCasesAnalyzeTest {

    private static final double GIB = 1L << 30;
    private static final long MIB = 1L << 20;

    private static JsonNode analyze(String caseName, String... files) throws Exception {
        List<String> args = new ArrayList<>(List.of("analyze", "--no-write", "--format", "json"));
        for (String f : files) {
            args.add(Cases.file(caseName, f).toString());
        }
        CliRun r = CliRun.of(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return new ObjectMapper().readTree(r.out());
    }

    private static List<JsonNode> findings(JsonNode report, String kind) {
        List<JsonNode> out = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("kind").asText().equals(kind)) {
                out.add(f);
            }
        });
        return out;
    }

    static JsonNode figure(JsonNode finding, String name) {
        for (JsonNode f : finding.get("figures")) {
            if (f.get("name").asText().equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no figure " + name + " in " + finding);
    }

    static double gib(JsonNode finding, String name) {
        return figure(finding, name).get("bytes").asLong() / GIB;
    }

    @Test
    void fourInstancesOnOne910b2() throws Exception {
        String c = "ascend-8621-four-instances-one-910b2";
        JsonNode r = analyze(c, "description-excerpt.md", "engine-error-4th-instance.log", "npu-smi.txt");
        assertThat(r.get("status").asText()).isEqualTo("failed");
        JsonNode refused = findings(r, "start_refused").get(0);
        assertThat(gib(refused, "total_seen")).isCloseTo(60.96, within(0.005));
        assertThat(gib(refused, "free_at_start")).isCloseTo(27.18, within(0.005));
        assertThat(gib(refused, "held_by_others")).isCloseTo(33.78, within(0.005)); // 60.96 - 27.18
        assertThat(gib(refused, "requested")).isCloseTo(54.86, within(0.005));      // 0.9 x 60.96
        assertThat(gib(refused, "shortfall")).isCloseTo(27.68, within(0.005));      // 54.86 - 27.18
        assertThat(gib(refused, "outside_torch_view")).isCloseTo(3.04, within(0.005)); // 64.00 - 60.96
        // case.md: instances 1-3 plus driver/runtime; per-instance split unknown: no process table in the excerpt
        assertThat(refused.get("text").asText()).contains("How the 33.78 GiB held is split among the processes is unknown");
        JsonNode shares = findings(r, "over_subscribed").get(0);
        // the user's prose: 0.2, 0.45, 0.70, 0.9 -> 2.25 x 60.96 = 137.2 GiB on a 60.96 GiB device
        assertThat(figure(shares, "utilization_sum").get("value").asDouble()).isEqualTo(2.25);
        assertThat(gib(shares, "asked_together")).isCloseTo(137.16, within(0.01));
        assertThat(gib(shares, "equal_share_bytes")).isCloseTo(13.41, within(0.01)); // 0.22 x 60.96
        assertThat(gib(shares, "in_use_before_instance_3_at_most")).isCloseTo(18.29, within(0.005)); // 60.96 - 42.67
        assertThat(gib(shares, "nominal_budget_of_instances_1_to_2")).isCloseTo(39.62, within(0.005)); // 12.19 + 27.43
        // after the check was disabled: NPU 0 59872 / 65536 MiB -> 5664 MiB (5.53 GiB) free
        JsonNode npu0 = findings(r, "headroom").stream().filter(f -> f.get("devices").get(0).asText()
                .equals("npu:0/chip:0")).findFirst().orElseThrow();
        assertThat(figure(npu0, "used").get("bytes").asLong()).isEqualTo(59872 * MIB);
        assertThat(figure(npu0, "free").get("bytes").asLong()).isEqualTo(5664 * MIB);
        // case.md: the card is effectively full; instance 4 got whatever was left, not its 54.86 GiB,
        // so a later OOM under load is to be expected
        JsonNode leftover = findings(r, "leftover_start").get(0);
        assertThat(leftover.get("severity").asText()).isEqualTo("warn");
        assertThat(leftover.get("devices").get(0).asText()).isEqualTo("npu:0/chip:0");
        assertThat(figure(leftover, "free_at_sample").get("bytes").asLong()).isEqualTo(5664 * MIB); // 65536 - 59872
        assertThat(gib(leftover, "taken_after_refusal")).isCloseTo(21.65, within(0.005));  // 27.18 - 5.53
        assertThat(gib(leftover, "requested")).isCloseTo(54.86, within(0.005));
        assertThat(leftover.get("text").asText()).contains("forced past vLLM's start check")
                .contains("run out of memory under load");
    }

    /**
     * 8621 with NPU 0's row as it would read before instance 4 took anything (59872 MiB used
     * rewritten as 30000 in place: 35536 MiB = 34.70 GiB free, more than the 27.18 GiB the refusal
     * saw): nothing was taken after the refusal, so no leftover start is claimed.
     */
    @Test
    void noLeftoverStartWhenTheSampleShowsMoreFreeThanTheRefusal(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        String c = "ascend-8621-four-instances-one-910b2";
        String table = java.nio.file.Files.readString(Cases.file(c, "npu-smi.txt")).replace("59872/ 65536", "30000/ 65536");
        assertThat(table).contains("30000/ 65536");
        java.nio.file.Path smi = java.nio.file.Files.writeString(tmp.resolve("npu-smi.txt"), table);
        CliRun run = CliRun.of("analyze", "--no-write", "--format", "json", Cases.file(c, "engine-error-4th-instance.log").toString(),
                smi.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode r = new ObjectMapper().readTree(run.out());
        assertThat(findings(r, "start_refused")).hasSize(1);
        assertThat(findings(r, "leftover_start")).isEmpty();
    }

    /**
     * The whole case folder, as a user hands over a folder of attachments: case.md's worked
     * arithmetic (0.2 + 0.45 + 0.70 + 0.9 = 2.25, 4 x 0.22 = 0.88, <= ~0.95) states no instances;
     * before, it made 11 "instances" summing to 6.55.
     */
    @Test
    void fourInstancesFromTheWholeFolder() throws Exception {
        String c = "ascend-8621-four-instances-one-910b2";
        CliRun run = CliRun.of("analyze", "--no-write", "--format", "json", Cases.file(c, "case.md").getParent().toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode shares = findings(new ObjectMapper().readTree(run.out()), "over_subscribed").get(0);
        assertThat(figure(shares, "utilization_sum").get("value").asDouble()).isEqualTo(2.25); // 0.2+0.45+0.70+0.9
        assertThat(figure(shares, "utilization_4").get("value").asDouble()).isEqualTo(0.9);
        assertThat(shares.get("figures").toString()).doesNotContain("utilization_5");
    }

    private static CliRun analyzeFolder(String caseName) throws Exception {
        CliRun run = CliRun.of("analyze", "--no-write", "--format", "json", Cases.file(caseName, "case.md").getParent().toString());
        assertThat(run.exit()).as(run.err()).isZero();
        return run;
    }

    /**
     * A whole case folder: case.md, the worked answer, is a write-up about the other files and not
     * read (said on stderr and in the notes); the answer comes from the user's files alone, with
     * the figures the per-file tests above work out.
     */
    @Test
    void wholeCaseFoldersLeaveTheWorkedAnswerOut() throws Exception {
        CliRun rtx = analyzeFolder("vllm-13882-rtx4060-8gb-negative-kv");
        assertThat(rtx.err()).contains("skipped ").contains("case.md: a write-up about the folder's other files");
        JsonNode r = new ObjectMapper().readTree(rtx.out());
        assertThat(r.get("notes").toString()).contains("case.md: a write-up").contains("names startup.log")
                // before: case.md's quoted "-1.05GiB" (its line 7) made it a second vLLM log, a second server
                .doesNotContain("2 vLLM logs");
        assertThat(r.toString()).doesNotContain("case.md:7");
        JsonNode kv = findings(r, "kv_negative").get(0);
        assertThat(gib(kv, "budget")).isCloseTo(5.60, within(0.005));            // 8.00 x 0.70
        assertThat(gib(kv, "kv_cache")).isCloseTo(-1.05, within(0.005));
        assertThat(figure(kv, "kv_cache").get("sources").toString()).contains("startup.log\",\"line\":4");

        JsonNode tei = new ObjectMapper().readTree(analyzeFolder("ascend-8809-910b4-32gb-vllm-plus-embedding-service").out());
        assertThat(tei.get("notes").toString()).contains("case.md: a write-up");
        // NPU 0: 32768 - 28220 = 4548 MiB; NPU 1: 32768 - 28045 = 4723 MiB, from npu-smi.txt alone
        assertThat(findings(tei, "headroom")).extracting(f -> figure(f, "free").get("bytes").asLong())
                .containsExactly(4548 * MIB, 4723 * MIB);

        // the pasted issue text beside it is still evidence: its 0.2, 0.45, 0.70, 0.9 make the 2.25
        JsonNode four = new ObjectMapper().readTree(analyzeFolder("ascend-8621-four-instances-one-910b2").out());
        assertThat(four.get("notes").toString()).contains("case.md: a write-up").doesNotContain("description-excerpt.md: a write-up");
        JsonNode shares = findings(four, "over_subscribed").get(0);
        assertThat(figure(shares, "utilization_sum").get("value").asDouble()).isEqualTo(2.25);
        assertThat(figure(shares, "utilization_1").get("sources").toString()).contains("description-excerpt.md\",\"line\":1");
        assertThat(gib(findings(four, "start_refused").get(0), "shortfall")).isCloseTo(27.68, within(0.005)); // 54.86 - 27.18
    }

    /**
     * 8621 with the user's shares written as percentages (the description's 0.2, 0.45, 0.70, 0.9
     * rewritten in place as 20%, 45%, 70%, 90%; the log and table as they are): the same
     * over-subscription, 2.25 of the total.
     */
    @Test
    void fourInstancesWithTheirSharesInPercent(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        String c = "ascend-8621-four-instances-one-910b2";
        String prose = java.nio.file.Files.readString(Cases.file(c, "description-excerpt.md"))
                .replace("0.2启动", "20%启动").replace("0.45后", "45%后").replace("0.70后", "70%后").replace("0.9后", "90%后");
        assertThat(prose).contains("20%", "45%", "70%", "90%").doesNotContain("0.45");
        java.nio.file.Path description = java.nio.file.Files.writeString(tmp.resolve("description.md"), prose);
        CliRun run = CliRun.of("analyze", "--no-write", "--format", "json", description.toString(),
                Cases.file(c, "engine-error-4th-instance.log").toString(), Cases.file(c, "npu-smi.txt").toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode shares = findings(new ObjectMapper().readTree(run.out()), "over_subscribed").get(0);
        assertThat(figure(shares, "utilization_sum").get("value").asDouble()).isEqualTo(2.25); // 0.2+0.45+0.70+0.9
        assertThat(figure(shares, "utilization_1").get("sources").get(0).get("text").asText()).isEqualTo("20%");
        assertThat(gib(shares, "asked_together")).isCloseTo(137.16, within(0.01)); // 2.25 x 60.96
    }

    @Test
    void a910b4SharedWithAnEmbeddingService() throws Exception {
        String c = "ascend-8809-910b4-32gb-vllm-plus-embedding-service";
        JsonNode r = analyze(c, "npu-smi.txt", "resolution-comment-excerpt.md");
        List<JsonNode> headroom = findings(r, "headroom");
        // NPU 0: 32768 - 28220 = 4548 MiB (4.44 GiB); NPU 1: 32768 - 28045 = 4723 MiB (4.61 GiB)
        assertThat(headroom).extracting(f -> figure(f, "free").get("bytes").asLong())
                .containsExactly(4548 * MIB, 4723 * MIB);
        JsonNode npu0 = headroom.get(0);
        // 28220 - 3197 .. 28220 - 2787 MiB held by the server (estimated from other 910B4 hosts)
        assertThat(figure(npu0, "server_share_estimate_low").get("bytes").asLong()).isEqualTo(25_023 * MIB);
        assertThat(figure(npu0, "server_share_estimate_high").get("bytes").asLong()).isEqualTo(25_433 * MIB);
        assertThat(figure(npu0, "utilization_estimate").get("confidence").asText()).isEqualTo("estimated");
        assertThat(npu0.get("text").asText()).contains("4.44 GiB free");
        // the embedding server the reporter's resolution names (line 1, with the image tag it rolled back to)
        // is what must fit in the headroom: case.md's "TEI must fit in that"
        for (JsonNode h : headroom) {
            assertThat(h.get("text").asText()).contains("MIS-TEI (text-embeddings-inference), named at "
                    + Cases.file(c, "resolution-comment-excerpt.md") + ":1 \"mis-tei:7.2.RC1-800I-A2-aarch64\"");
        }
        assertThat(npu0.get("advice").get(0).asText()).startsWith("MIS-TEI (or any other service) on npu:0/chip:0 must fit in 4.44 GiB");
        String resolution = Cases.file(c, "resolution-comment-excerpt.md").toString();
        for (JsonNode h : headroom) {
            // the docker run's --device /dev/davinci0 .. /dev/davinci7 (lines 12-19) of the vLLM image
            assertThat(h.get("text").asText()).contains("of the 8 NPUs (/dev/davinci0-7) the vLLM container was given ("
                    + resolution + ":12-19 \"--device /dev/davinci0\"");
            // case.md: the reporter's fix (rolling MIS-TEI back to 7.2.RC1) means the newer TEI image needed
            // more than that headroom, not that vLLM exceeded its budget
            assertThat(h.get("text").asText()).contains("The fix the evidence reports is rolling MIS-TEI back to"
                    + " mis-tei:7.2.RC1-800I-A2-aarch64 (" + resolution + ":1)").contains("not vLLM");
        }
        assertThat(headroom.get(1).get("text").asText()).contains("npu:1/chip:0 is one of the 8 NPUs");
    }

    @Test
    void rtx4060NegativeKv() throws Exception {
        JsonNode r = analyze("vllm-13882-rtx4060-8gb-negative-kv", "startup.log");
        assertThat(r.get("status").asText()).isEqualTo("failed");
        JsonNode kv = findings(r, "kv_negative").get(0);
        assertThat(gib(kv, "budget")).isCloseTo(5.60, within(0.005));            // 8.00 x 0.70
        // vLLM printed the 0.70 itself ("x gpu_memory_utilization (0.70)", line 3): its own figure
        assertThat(figure(kv, "utilization").get("confidence").asText()).isEqualTo("reported");
        assertThat(gib(kv, "needed_before_kv")).isCloseTo(6.65, within(0.005));   // 5.20 + 0.03 + 1.42
        assertThat(gib(kv, "kv_cache")).isCloseTo(-1.05, within(0.005));
        assertThat(figure(kv, "gpu_blocks").get("value").asDouble()).isZero();
        JsonNode fits = findings(r, "what_fits").get(0);
        // 2 x 28 x 4 x 128 x 2 B = 57,344 B/token x 4096 = 234,881,024 B (0.22 GiB)
        assertThat(figure(fits, "kv_for_one_request").get("bytes").asLong()).isEqualTo(234_881_024L);
        // (6.65 + 0.22) / 8.00 = 0.859 -> 0.86
        assertThat(figure(fits, "smallest_utilization").get("value").asDouble()).isEqualTo(0.86);
    }

    @Test
    void failOnFailedExitsThree() throws Exception {
        CliRun r = CliRun.of("analyze", "--no-write", "--fail-on", "failed",
                Cases.file("vllm-13882-rtx4060-8gb-negative-kv", "startup.log").toString());
        assertThat(r.exit()).isEqualTo(3);
        CliRun ok = CliRun.of("analyze", "--no-write", "--fail-on", "failed",
                Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "npu-smi.txt").toString());
        assertThat(ok.exit()).isZero();
        CliRun incomplete = CliRun.of("analyze", "--no-write", "--fail-on", "incomplete",
                Cases.file("ascend-8809-910b4-32gb-vllm-plus-embedding-service", "npu-smi.txt").toString());
        assertThat(incomplete.exit()).isEqualTo(3);
    }
}
