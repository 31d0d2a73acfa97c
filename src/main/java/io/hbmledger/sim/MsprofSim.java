package io.hbmledger.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIMULATOR: an {@code msprof} stand-in, launched by {@code sim/bin/msprof}.
 *
 * <p>Collection, in the two forms the msprof documentation gives ("msprof [options] &lt;app&gt;",
 * recommended, and "msprof [options] --application=&lt;app&gt;"):
 * <pre>
 * msprof --output=DIR --sys-hardware-mem=on --sys-hardware-mem-freq=HZ APP ARGS...
 * msprof --output=DIR --sys-hardware-mem=on --sys-hardware-mem-freq=HZ --application="APP ARGS"
 * </pre>
 * runs the application (argument list, no shell; the {@code --application} string is split on
 * whitespace, as msprof does, which is why the documentation recommends the first form), samples
 * the simulated devices at HZ (1..1000, default 50, sampled at most 100 times a second) while it runs into
 * {@code DIR/PROF_000001_<time>_<random>/device_N/data/}, then exports as below, and exits with the
 * application's exit code. Devices sampled: {@code $ASCEND_RT_VISIBLE_DEVICES}, else all.
 * On SIGINT/SIGTERM it waits for the application to exit (SIGTERM to it after 30 s), keeps the raw
 * data and skips the automatic export.
 *
 * <p>Export: {@code msprof --export=on --output=DIR} where DIR is a PROF_* directory or holds some.
 *
 * <p>Faults for tests, by environment: {@code HBM_SIM_MSPROF_EXPORT_HANG=1} (export never ends),
 * {@code HBM_SIM_MSPROF_EXPORT_EMPTY=1} (export succeeds but writes no CSV),
 * {@code HBM_SIM_MSPROF_AUTO_EXPORT=0} (no export after collection),
 * {@code HBM_SIM_MSPROF_SLICE_ROWS=N} (split CSVs into {@code _slice_N} files of N rows).
 */
public final class MsprofSim {

    private static final DateTimeFormatter PROF_TIME = DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS");

    private MsprofSim() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
        Map<String, String> opts = new LinkedHashMap<>();
        List<String> app = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!app.isEmpty() || !a.startsWith("--")) {
                app.add(a);
                continue;
            }
            int eq = a.indexOf('=');
            if (eq > 0) {
                opts.put(a.substring(2, eq), a.substring(eq + 1));
            } else if (a.equals("--help") || a.equals("-h")) {
                opts.put("help", "on");
            } else if (i + 1 < argv.length) {
                opts.put(a.substring(2), argv[++i]);
            } else {
                opts.put(a.substring(2), "");
            }
        }
        if (opts.containsKey("help") || (argv.length == 0)) {
            out.print(usage());
            return argv.length == 0 ? 2 : 0;
        }
        out.println("[WARNING] msprof SIMULATOR (hbm-ledger): no NPU is profiled; samples come from the "
                + "simulated Ascend host in " + SimStateStore.HOME_ENV);
        try {
            if ("on".equals(opts.get("export"))) {
                return export(opts, env, out, err);
            }
            if (opts.containsKey("application")) {
                if (!app.isEmpty()) {
                    throw new SimException("give the application either after the options or with "
                            + "--application, not both", 2);
                }
                for (String part : opts.get("application").trim().split("\\s+")) {
                    if (!part.isEmpty()) {
                        app.add(part);
                    }
                }
            }
            return collect(opts, app, env, out, err);
        } catch (SimException e) {
            err.println("[ERROR] msprof (SIMULATOR): " + e.getMessage());
            return e.exitCode();
        } catch (IOException e) {
            err.println("[ERROR] msprof (SIMULATOR): " + e);
            return 1;
        }
    }

    private static int collect(Map<String, String> opts, List<String> app, Map<String, String> env,
            PrintStream out, PrintStream err) throws IOException {
        if (app.isEmpty()) {
            throw new SimException("no application to profile: pass it after the options or with "
                    + "--application=\"APP ARGS\" (system-only collection is not simulated)", 2);
        }
        if (!"on".equals(opts.getOrDefault("sys-hardware-mem", "off"))) {
            out.println("[WARNING] --sys-hardware-mem is not on: the simulator collects memory data only, "
                    + "so this run records nothing");
        }
        int hz;
        try {
            hz = Integer.parseInt(opts.getOrDefault("sys-hardware-mem-freq", "50"));
        } catch (NumberFormatException e) {
            throw new SimException("--sys-hardware-mem-freq must be an integer in 1..1000", 2);
        }
        // msprof CLI guide: 1..1000 Hz, default 50; the acl API (ACL_PROF_SYS_HARDWARE_MEM_FREQ)
        // documents [1,100] for component memory, so the simulator samples at most 100 times a second.
        if (hz < 1 || hz > 1000) {
            throw new SimException("--sys-hardware-mem-freq=" + hz + " is outside 1..1000", 2);
        }
        int sampleHz = Math.min(hz, 100);
        SimStateStore store = SimStateStore.locate(opts.containsKey("sim-home") ? opts.get("sim-home")
                : env.get(SimStateStore.HOME_ENV));
        Path output = Path.of(opts.getOrDefault("output", ".")).toAbsolutePath().normalize();
        Files.createDirectories(output);
        Path prof = output.resolve("PROF_000001_" + LocalDateTime.now().format(PROF_TIME) + "_" + randomLetters());
        Files.createDirectories(prof);
        List<Integer> devices = devices(env, store.read());
        boolean memOn = "on".equals(opts.getOrDefault("sys-hardware-mem", "off"));

        out.println("[INFO] Start profiling....");
        out.flush();
        Process child = new ProcessBuilder(app).inheritIO().start();
        AtomicBoolean signalled = new AtomicBoolean(false);
        CountDownLatch finished = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            signalled.set(true);
            try {
                if (!child.waitFor(30, TimeUnit.SECONDS)) {
                    child.destroy();
                    if (!child.waitFor(10, TimeUnit.SECONDS)) {
                        child.destroyForcibly();
                    }
                }
                finished.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "msprof-sim-shutdown"));

        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        int rc;
        try (MsprofSampler sampler = memOn ? new MsprofSampler(store, devices, child.toHandle(), prof) : null) {
            if (sampler != null) {
                timer.scheduleAtFixedRate(() -> {
                    try {
                        sampler.sample();
                    } catch (IOException | RuntimeException e) {
                        err.println("[WARNING] msprof (SIMULATOR): a sample failed: " + e);
                    }
                }, 0, 1_000_000 / sampleHz, TimeUnit.MICROSECONDS);
            }
            try {
                rc = child.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                rc = 1;
            }
            timer.shutdown();
            try {
                timer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (sampler != null) {
                sampler.sample(); // the state as the application left it
            }
        }
        out.println("[INFO] Profiling finished.");
        out.println("[INFO] Process profiling data complete. Data is saved in " + prof);
        out.flush();
        try {
            if (!signalled.get() && !"0".equals(env.get("HBM_SIM_MSPROF_AUTO_EXPORT"))) {
                exportOne(prof, env, out);
            }
        } finally {
            finished.countDown();
        }
        return rc;
    }

    private static int export(Map<String, String> opts, Map<String, String> env, PrintStream out,
            PrintStream err) throws IOException {
        String dir = opts.get("output");
        if (dir == null || dir.isBlank()) {
            throw new SimException("--export=on needs --output=PROF_DIR (or a directory holding PROF_* directories)", 2);
        }
        List<Path> profs = MsprofExporter.profDirs(Path.of(dir).toAbsolutePath().normalize());
        if (profs.isEmpty()) {
            err.println("[ERROR] msprof (SIMULATOR): no PROF_* directory at " + dir);
            return 1;
        }
        for (Path p : profs) {
            exportOne(p, env, out);
        }
        return 0;
    }

    private static void exportOne(Path prof, Map<String, String> env, PrintStream out) throws IOException {
        out.println("[INFO] Start export data in " + prof + ".");
        out.flush();
        if ("1".equals(env.get("HBM_SIM_MSPROF_EXPORT_HANG"))) {
            out.println("[WARNING] SIMULATED fault HBM_SIM_MSPROF_EXPORT_HANG=1: the export never ends");
            out.flush();
            VllmEngineSim.sleep(Long.MAX_VALUE);
        }
        if ("1".equals(env.get("HBM_SIM_MSPROF_EXPORT_EMPTY"))) {
            out.println("[WARNING] SIMULATED fault HBM_SIM_MSPROF_EXPORT_EMPTY=1: no summary data is exported");
            out.println("[INFO] Export all data in " + prof + " done.");
            return;
        }
        int slice = Integer.parseInt(env.getOrDefault("HBM_SIM_MSPROF_SLICE_ROWS", "0"));
        List<Path> files = new MsprofExporter(slice).export(prof);
        if (files.isEmpty()) {
            out.println("[WARNING] No data to export npu memory summary in " + prof);
        }
        for (Path f : files) {
            out.println("[INFO] Exported " + prof.relativize(f));
        }
        out.println("[INFO] Export all data in " + prof + " done.");
        out.flush();
    }

    private static List<Integer> devices(Map<String, String> env, SimState state) {
        List<Integer> ids = new ArrayList<>();
        String visible = env.get("ASCEND_RT_VISIBLE_DEVICES");
        if (visible != null && !visible.isBlank()) {
            for (String s : visible.split(",")) {
                try {
                    int id = Integer.parseInt(s.strip());
                    state.device(id);
                    ids.add(id);
                } catch (IllegalArgumentException e) {
                    throw new SimException("ASCEND_RT_VISIBLE_DEVICES='" + visible + "' names an NPU the "
                            + "simulated host does not have (" + e.getMessage() + ")", 2);
                }
            }
        } else {
            for (SimState.SimDevice d : state.devices()) {
                ids.add(d.id());
            }
        }
        return ids;
    }

    private static String randomLetters() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            b.append((char) ('A' + ThreadLocalRandom.current().nextInt(26)));
        }
        return b.toString();
    }

    static String usage() {
        return """
                msprof SIMULATOR (hbm-ledger): samples the simulated Ascend host, not a real NPU.
                  msprof --output=DIR --sys-hardware-mem=on [--sys-hardware-mem-freq=HZ] APP ARGS...
                  msprof --output=DIR --sys-hardware-mem=on [--sys-hardware-mem-freq=HZ] --application="APP ARGS"
                  msprof --export=on --output=DIR/PROF_xxx
                State directory: $HBM_SIM_HOME (or --sim-home=DIR).
                Faults: HBM_SIM_MSPROF_EXPORT_HANG=1, HBM_SIM_MSPROF_EXPORT_EMPTY=1, HBM_SIM_MSPROF_AUTO_EXPORT=0,
                        HBM_SIM_MSPROF_SLICE_ROWS=N.
                """;
    }
}
