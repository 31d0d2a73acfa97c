package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MsprofSimTest {

    private static final Duration LONG = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private SimStateStore store;
    private final List<SimProcess> started = new ArrayList<>();

    @BeforeEach
    void host() throws IOException {
        store = new SimStateStore(dir.resolve("host"));
        store.init(SimStateStore.idleHost(4, "910B1", 65536));
    }

    @AfterEach
    void killAll() throws Exception {
        for (SimProcess p : started) {
            p.killGroup();
        }
    }

    private List<String> javaCommand(Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private SimProcess msprof(Map<String, String> env, List<String> args) throws IOException {
        SimProcess p = SimProcess.start(dir.resolve("logs"), MsprofSim.class, args, env);
        started.add(p);
        return p;
    }

    private List<String> holdApp(int seconds) {
        return javaCommand(SimHostCli.class, "--sim-home", store.home().toString(), "hold", "--device", "1",
                "--mib", "1000", "--seconds", String.valueOf(seconds));
    }

    @Test
    void wrapperFormSamplesTheApplicationAndExportsMsprofLayouts() throws Exception {
        Path out = dir.resolve("out");
        List<String> args = new ArrayList<>(List.of("--output=" + out, "--sys-hardware-mem=on",
                "--sys-hardware-mem-freq=20", "--sim-home=" + store.home()));
        args.addAll(holdApp(2));
        SimProcess p = msprof(Map.of("ASCEND_RT_VISIBLE_DEVICES", "1,2"), args);
        assertThat(p.waitFor(LONG)).isTrue();
        assertThat(p.process.exitValue()).as(p.stdout() + p.stderr()).isZero();
        Path prof = single(out, "PROF_000001_*");
        assertThat(Files.isDirectory(prof.resolve("device_1/data"))).isTrue();
        assertThat(Files.isDirectory(prof.resolve("device_2/data"))).isTrue();
        assertThat(Files.exists(prof.resolve("device_0"))).isFalse();

        List<String> npuMem = Files.readAllLines(single(prof.resolve("mindstudio_profiler_output"), "npu_mem_*.csv"));
        assertThat(npuMem.get(0)).isEqualTo("Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)");
        // the holder's 1000 MiB = 1024000 KB as APP on NPU 1; Device = (3378 idle + 1000) MiB = 4483072 KB
        assertThat(npuMem).anyMatch(l -> l.matches("1,APP,0,1024000,1024000,\\d+\\.\\d{3}\t"));
        assertThat(npuMem).anyMatch(l -> l.matches("1,Device,0,4483072,4483072,\\d+\\.\\d{3}\t"));
        // NPU 2 untouched: APP 0, Device its idle 3376 MiB = 3457024 KB
        assertThat(npuMem).filteredOn(l -> l.startsWith("2,Device,"))
                .isNotEmpty().allMatch(l -> l.startsWith("2,Device,0,3457024,3457024,"));

        List<String> modules = Files.readAllLines(single(prof.resolve("mindstudio_profiler_output"), "npu_module_mem_*.csv"));
        assertThat(modules.get(0)).isEqualTo("Device_id,Component,Timestamp(us),Total Reserved(KB),Device");
        assertThat(modules).anyMatch(l -> l.matches("1,APP,\\d+\\.\\d{3}\t,1024000,NPU:1"));
        assertThat(modules).anyMatch(l -> l.matches("1,DRV,\\d+\\.\\d{3}\t,65536,NPU:1"));
        // same component names as the corpus npu_module_mem export, in the same first-seen order
        Set<String> ours = new LinkedHashSet<>();
        modules.stream().skip(1).forEach(l -> ours.add(l.split(",")[1]));
        Set<String> real = new LinkedHashSet<>();
        Files.readAllLines(Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv")).stream().skip(1)
                .forEach(l -> real.add(l.split(",")[0]));
        assertThat(ours).containsExactlyElementsOf(real);
        // the corpus file's quirk: a TAB right after every timestamp, before the comma
        assertThat(Files.readAllLines(Corpus.file("msprof/msinsight_level1_rank0_npu_module_mem.csv")).get(1))
                .contains("\t,");
        assertThat(modules.get(1)).contains("\t,");
        assertThat(p.stdout()).contains("[WARNING] msprof SIMULATOR", "[INFO] Export all data in " + prof);
        assertThat(store.read().device(1).allocations()).isEmpty();
    }

    @Test
    void applicationOptionFormAndSlicedExport() throws Exception {
        Path out = dir.resolve("out2");
        String app = String.join(" ", holdApp(1));
        SimProcess p = msprof(Map.of("ASCEND_RT_VISIBLE_DEVICES", "1", "HBM_SIM_MSPROF_SLICE_ROWS", "10"),
                List.of("--output=" + out, "--sys-hardware-mem=on", "--sys-hardware-mem-freq=10",
                        "--sim-home=" + store.home(), "--application=" + app));
        assertThat(p.waitFor(LONG)).isTrue();
        assertThat(p.process.exitValue()).isZero();
        Path outDir = single(out, "PROF_*").resolve("mindstudio_profiler_output");
        List<Path> slices;
        try (Stream<Path> s = Files.list(outDir)) {
            slices = s.filter(f -> f.getFileName().toString().matches("npu_mem_slice_\\d+_\\d{14}\\.csv")).sorted().toList();
        }
        assertThat(slices).hasSizeGreaterThan(1);
        for (Path f : slices) {
            List<String> lines = Files.readAllLines(f);
            assertThat(lines.get(0)).isEqualTo(MsprofFormat.NPU_MEM_HEADER);
            assertThat(lines.size()).isBetween(2, 11);
        }
    }

    @Test
    void exportFaultsLeaveNoCsvOrHang() throws Exception {
        Path out = dir.resolve("out3");
        List<String> args = new ArrayList<>(List.of("--output=" + out, "--sys-hardware-mem=on",
                "--sim-home=" + store.home()));
        args.addAll(holdApp(1));
        SimProcess collect = msprof(Map.of("HBM_SIM_MSPROF_AUTO_EXPORT", "0"), args);
        assertThat(collect.waitFor(LONG)).isTrue();
        Path prof = single(out, "PROF_*");
        assertThat(Files.exists(prof.resolve("mindstudio_profiler_output"))).isFalse();

        SimProcess empty = msprof(Map.of("HBM_SIM_MSPROF_EXPORT_EMPTY", "1"), List.of("--export=on", "--output=" + prof));
        assertThat(empty.waitFor(LONG)).isTrue();
        assertThat(empty.process.exitValue()).isZero();
        assertThat(Files.exists(prof.resolve("mindstudio_profiler_output"))).isFalse();

        SimProcess hang = msprof(Map.of("HBM_SIM_MSPROF_EXPORT_HANG", "1"), List.of("--export=on", "--output=" + out));
        hang.awaitOutput("HBM_SIM_MSPROF_EXPORT_HANG=1", LONG);
        assertThat(hang.waitFor(Duration.ofSeconds(2))).isFalse();
        hang.killGroup();

        SimProcess ok = msprof(Map.of(), List.of("--export=on", "--output=" + out));
        assertThat(ok.waitFor(LONG)).isTrue();
        assertThat(single(prof.resolve("mindstudio_profiler_output"), "npu_module_mem_*.csv")).isRegularFile();
    }

    @Test
    void wrappedVllmServerStopsOnSigintToTheGroupAndKeepsItsSamples() throws Exception {
        int port = VllmServerSimTest.freePort();
        Path out = dir.resolve("out4");
        List<String> args = new ArrayList<>(List.of("--output=" + out, "--sys-hardware-mem=on",
                "--sys-hardware-mem-freq=20", "--sim-home=" + store.home()));
        args.addAll(javaCommand(VllmServerSim.class, "serve", "m", "--port", String.valueOf(port),
                "--sim-home", store.home().toString(), "--sim-step-ms", "1", "--sim-weights-gib", "2",
                "--enforce-eager"));
        SimProcess p = msprof(Map.of("ASCEND_RT_VISIBLE_DEVICES", "3"), args);
        p.awaitOutput("Application startup complete.", LONG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"x\",\"max_tokens\":4}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        p.signalGroup("INT");
        assertThat(p.waitFor(LONG)).isTrue();
        assertThat(p.stderr()).contains("Application shutdown complete.");
        assertThat(p.stdout()).contains("[INFO] Profiling finished.").doesNotContain("Start export");
        Path prof = single(out, "PROF_*");
        SimProcess export = msprof(Map.of(), List.of("--export=on", "--output=" + prof));
        assertThat(export.waitFor(LONG)).isTrue();
        List<String> npuMem = Files.readAllLines(single(prof.resolve("mindstudio_profiler_output"), "npu_mem_*.csv"));
        List<Long> app = npuMem.stream().filter(l -> l.startsWith("3,APP,")).map(l -> Long.parseLong(l.split(",")[3])).toList();
        // weights alone are 2 GiB = 2097152 KB; the last sample, after shutdown, is 0
        assertThat(app.stream().mapToLong(Long::longValue).max().orElse(0)).isGreaterThan(2097152);
        assertThat(app.get(app.size() - 1)).isZero();
        assertThat(store.read().device(3).allocations()).isEmpty();
    }

    private static Path single(Path dir, String glob) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob)) {
            ds.forEach(found::add);
        }
        assertThat(found).as("%s in %s", glob, dir).hasSize(1);
        return found.get(0);
    }
}
