package io.hbmledger.sim;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SIMULATOR: {@code msprof --export=on}: turns the raw samples of a {@code PROF_*} directory into
 * {@code mindstudio_profiler_output/npu_mem_*.csv}, {@code npu_module_mem_*.csv} and
 * {@code memory_record_*.csv} in msprof's layouts ({@link MsprofFormat}). Each CSV is written to a
 * temporary name and renamed, so a killed export leaves no half file under the final name.
 */
final class MsprofExporter {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

    private final int sliceRows;

    /** @param sliceRows rows per file before a new {@code _slice_N} starts; 0 for one file */
    MsprofExporter(int sliceRows) {
        this.sliceRows = sliceRows;
    }

    /** PROF_* directories to export: {@code dir} itself or its PROF_* children. */
    static List<Path> profDirs(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        if (dir.getFileName() != null && dir.getFileName().toString().startsWith("PROF_")) {
            out.add(dir);
            return out;
        }
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "PROF_*")) {
                for (Path p : ds) {
                    if (Files.isDirectory(p)) {
                        out.add(p);
                    }
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** Exports one PROF_* directory; returns the CSV files written (none when there is no raw data). */
    List<Path> export(Path prof) throws IOException {
        // device -> nanos -> values, read from device_N/data/hbm_sim.data.*
        Map<Integer, TreeMap<Long, Map<String, Long>>> mem = new TreeMap<>();
        Map<Integer, TreeMap<Long, Map<String, Long>>> modules = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(prof, "device_*")) {
            for (Path dev : ds) {
                int id = Integer.parseInt(dev.getFileName().toString().substring("device_".length()));
                Path dataDir = dev.resolve("data");
                if (!Files.isDirectory(dataDir)) {
                    continue;
                }
                try (DirectoryStream<Path> raws = Files.newDirectoryStream(dataDir, "hbm_sim.data.*")) {
                    for (Path raw : raws) {
                        read(raw, id, mem, modules);
                    }
                }
            }
        }
        List<Path> written = new ArrayList<>();
        if (mem.isEmpty()) {
            return written;
        }
        Path outDir = prof.resolve("mindstudio_profiler_output");
        Files.createDirectories(outDir);
        String stamp = LocalDateTime.now().format(STAMP);

        List<String> npuMem = new ArrayList<>();
        for (Map.Entry<Integer, TreeMap<Long, Map<String, Long>>> d : mem.entrySet()) {
            for (Map.Entry<Long, Map<String, Long>> t : d.getValue().entrySet()) {
                for (String event : List.of("APP", "Device")) {
                    Long v = t.getValue().get(event);
                    if (v != null) {
                        npuMem.add(MsprofFormat.npuMemRow(d.getKey(), event, v, t.getKey()));
                    }
                }
            }
        }
        written.addAll(write(outDir, "npu_mem", stamp, MsprofFormat.NPU_MEM_HEADER, npuMem));

        List<String> module = new ArrayList<>();
        List<String> record = new ArrayList<>();
        for (String c : MsprofFormat.COMPONENTS) {
            for (Map.Entry<Integer, TreeMap<Long, Map<String, Long>>> d : modules.entrySet()) {
                for (Map.Entry<Long, Map<String, Long>> t : d.getValue().entrySet()) {
                    Long v = t.getValue().get(c);
                    if (v != null) {
                        module.add(MsprofFormat.moduleRow(d.getKey(), c, v, t.getKey()));
                    }
                }
            }
        }
        for (Map.Entry<Integer, TreeMap<Long, Map<String, Long>>> d : modules.entrySet()) {
            for (Map.Entry<Long, Map<String, Long>> t : d.getValue().entrySet()) {
                long ge = t.getValue().getOrDefault("GE", 0L);
                if (ge > 0) {
                    // the simulator's GE pool is half in use
                    record.add(MsprofFormat.memoryRecordRow(d.getKey(), ge / 2, ge, t.getKey()));
                }
            }
        }
        written.addAll(write(outDir, "npu_module_mem", stamp, MsprofFormat.NPU_MODULE_MEM_HEADER, module));
        if (!record.isEmpty()) {
            written.addAll(write(outDir, "memory_record", stamp, MsprofFormat.MEMORY_RECORD_HEADER, record));
        }
        return written;
    }

    private static void read(Path raw, int device, Map<Integer, TreeMap<Long, Map<String, Long>>> mem,
            Map<Integer, TreeMap<Long, Map<String, Long>>> modules) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(raw, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                String[] f = line.split(",");
                if (f.length != 4) {
                    continue; // a line cut by a killed collection
                }
                long nanos;
                long bytes;
                try {
                    nanos = Long.parseLong(f[0]);
                    bytes = Long.parseLong(f[3]);
                } catch (NumberFormatException e) {
                    continue;
                }
                Map<Integer, TreeMap<Long, Map<String, Long>>> target = f[1].equals("npu_mem") ? mem : modules;
                target.computeIfAbsent(device, k -> new TreeMap<>())
                        .computeIfAbsent(nanos, k -> new TreeMap<>()).put(f[2], bytes);
            }
        }
    }

    private List<Path> write(Path outDir, String name, String stamp, String header, List<String> rows)
            throws IOException {
        List<Path> files = new ArrayList<>();
        if (sliceRows <= 0 || rows.size() <= sliceRows) {
            files.add(writeOne(outDir.resolve(name + "_" + stamp + ".csv"), header, rows));
            return files;
        }
        for (int i = 0, slice = 0; i < rows.size(); i += sliceRows, slice++) {
            files.add(writeOne(outDir.resolve(name + "_slice_" + slice + "_" + stamp + ".csv"), header,
                    rows.subList(i, Math.min(rows.size(), i + sliceRows))));
        }
        return files;
    }

    private static Path writeOne(Path target, String header, List<String> rows) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            w.write(header);
            w.write('\n');
            for (String row : rows) {
                w.write(row);
                w.write('\n');
            }
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }
}
