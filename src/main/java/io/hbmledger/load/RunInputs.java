package io.hbmledger.load;

import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.paste.WorkedAnswer;
import io.hbmledger.run.Moment;
import io.hbmledger.run.RunDirectory;
import io.hbmledger.run.RunManifest;
import io.hbmledger.run.RunManifest.EvidenceEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The evidence files of a run directory, or of files given one by one, each with its moment, rank and device. */
final class RunInputs {

    private RunInputs() {
    }

    /** True when the inputs are one run directory (or its run.json) rather than evidence files. */
    static boolean isRunDirectory(List<Path> inputs) throws IOException {
        return inputs.size() == 1 && (Files.isDirectory(inputs.get(0)) && !MsprofFormats.isExportDir(inputs.get(0))
                && Files.exists(inputs.get(0).resolve(RunManifest.FILE_NAME))
                || inputs.get(0).getFileName().toString().equals(RunManifest.FILE_NAME));
    }

    /**
     * Standard input ({@code -}, a pasted table or log piped in), kept in a private temporary
     * file named {@code -} so that it is read, cited and moment-guessed like any file.
     */
    private static Path stdin() throws IOException {
        Path dir = Files.createTempDirectory("hbm-ledger-stdin");
        dir.toFile().deleteOnExit();
        Path f = dir.resolve("-");
        Files.copy(System.in, f);
        f.toFile().deleteOnExit();
        return f;
    }

    /**
     * A directory without run.json stands for the evidence files in it (what people attach to
     * an issue): every regular file below it, in name order; msprof exports stay whole; the
     * reports hbm-ledger writes and hidden files are left out, and so is a write-up about the
     * other files ({@link WorkedAnswer}: a worked answer quotes their figures, it does not add
     * any), named in {@code skipped} with why. A file named on its own is always read.
     */
    static List<Path> expand(List<Path> inputs, List<String> skipped) throws IOException, BadInputException {
        List<Path> out = new ArrayList<>();
        boolean stdinRead = false;
        for (Path p : inputs) {
            if (p.toString().equals("-")) {
                if (stdinRead) {
                    // the first "-" read standard input to its end: the second read nothing and was
                    // skipped as an empty file, while evidence refused the same command line
                    throw new BadInputException("-: standard input is named a second time; it can be read only once:"
                            + " name - once, or save each input to a file and name the files");
                }
                stdinRead = true;
                out.add(stdin());
                continue;
            }
            if (!Files.isDirectory(p) || MsprofFormats.standsForExport(p)) {
                out.add(p);
                continue;
            }
            out.addAll(folder(p, skipped));
        }
        return out;
    }

    /**
     * What a directory without run.json stands for ({@link #expand}): its msprof exports whole,
     * its other regular files, write-ups left out (in {@code skipped}). The one rule both
     * {@code analyze DIR} and {@code evidence DIR} list a folder by.
     *
     * @throws BadInputException when the directory holds no file
     */
    static List<Path> folder(Path p, List<String> skipped) throws IOException, BadInputException {
        List<Path> found = new ArrayList<>();
        try (var walk = Files.walk(p, 4)) {
            for (Path f : walk.sorted().toList()) {
                String name = f.getFileName().toString();
                if (f.equals(p) || name.startsWith(".") || name.startsWith("report.")) {
                    continue;
                }
                if (Files.isDirectory(f) && MsprofFormats.standsForExport(f) && found.stream().noneMatch(f::startsWith)) {
                    found.add(f);
                } else if (Files.isRegularFile(f) && found.stream().noneMatch(f::startsWith)) {
                    found.add(f);
                }
            }
        }
        if (found.isEmpty()) {
            throw new BadInputException(p + ": an empty directory without run.json; give evidence files or a run directory");
        }
        return withoutWriteUps(found, skipped);
    }

    /** Largest file looked at as a possible write-up: answers are short prose, logs and exports are not. */
    private static final long WRITE_UP_MAX_BYTES = 256 * 1024;

    private static List<Path> withoutWriteUps(List<Path> found, List<String> skipped) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path f : found) {
            if (Files.isRegularFile(f) && Files.size(f) <= WRITE_UP_MAX_BYTES) {
                List<String> others = found.stream().filter(o -> !o.equals(f)).map(o -> o.getFileName().toString()).toList();
                Optional<WorkedAnswer.Verdict> v = WorkedAnswer.of(TextBytes.decode(Files.readAllBytes(f)), others,
                        name -> found.stream().filter(o -> !o.equals(f) && o.getFileName().toString().equals(name))
                                .findFirst().map(RunInputs::besideText).orElse(null));
                if (v.isPresent()) {
                    skipped.add(f + ": " + v.get().reason() + "; name the file on its own to read it anyway");
                    continue;
                }
            }
            out.add(f);
        }
        return out;
    }

    /** Largest file whose text a write-up's quotes are looked for in. */
    private static final long QUOTED_MAX_BYTES = 64L << 20;

    /** The text of another file of the folder, or null when it is too big or unreadable. */
    private static String besideText(Path f) {
        try {
            return Files.isRegularFile(f) && Files.size(f) <= QUOTED_MAX_BYTES ? TextBytes.decode(Files.readAllBytes(f)) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** run.json's evidence entries; each must be a regular file or an msprof export directory. */
    static List<RunInput> of(RunDirectory rd) throws BadInputException, IOException {
        List<RunInput> out = new ArrayList<>();
        Path manifest = rd.dir().resolve(RunManifest.FILE_NAME);
        if (rd.manifest().evidence().isEmpty()) {
            throw new BadInputException(manifest + ": the run names no evidence files;"
                    + " add entries to \"evidence\" (see docs/run.schema.json)");
        }
        for (int i = 0; i < rd.manifest().evidence().size(); i++) {
            EvidenceEntry e = rd.manifest().evidence().get(i);
            Path p = rd.resolve(e);
            // an msprof export is a directory; every other kind of evidence is one file
            if (!Files.isRegularFile(p) && !MsprofFormats.isExportDir(p)) {
                throw new BadInputException(manifest + ":" + rd.evidenceLine(i) + ": evidence[" + i
                        + "] \"" + e.file() + "\": expected a regular file or an msprof export directory, found "
                        + (Files.isDirectory(p) ? "a directory without msprof data"
                                : Files.exists(p) ? "a special file" : "nothing")
                        + "; fix the name or remove the entry");
            }
            Moment m = e.moment() == null ? null : Moment.parse(e.moment()).orElseThrow();
            Object dev = e.extra().get("device");
            Integer device = dev instanceof Number n ? n.intValue() : null;
            out.add(new RunInput(p, rd.display(e), e.file(), m, e.rank(), device));
        }
        return out;
    }

    /** Evidence files given one by one, with the moments and devices the options give them. */
    static List<RunInput> of(List<Path> inputs, FileOptions opts) throws BadInputException, IOException {
        Map<String, Moment> byName = new LinkedHashMap<>();
        for (Map.Entry<String, String> m : opts.moments().entrySet()) {
            Optional<Moment> mo = Moment.parse(m.getValue());
            if (mo.isEmpty()) {
                throw new BadInputException("--moment " + m.getKey() + "=" + m.getValue() + ": expected one of " + Moment.names());
            }
            byName.put(m.getKey(), mo.get());
        }
        List<RunInput> out = new ArrayList<>();
        List<String> matched = new ArrayList<>();
        List<String> matchedDevices = new ArrayList<>();
        for (Path p : inputs) {
            if (Files.isDirectory(p) && !MsprofFormats.isExportDir(p)) {
                throw new BadInputException(p + ": a directory among several inputs; give one run directory, or evidence files");
            }
            String shown = p.getFileName() != null && p.getFileName().toString().equals("-") ? "-" : p.toString();
            String key = byName.containsKey(shown) ? shown
                    : byName.containsKey(p.getFileName().toString()) ? p.getFileName().toString()
                    : byName.keySet().stream().filter(k -> sameFile(k, p)).findFirst().orElse(null);
            if (key != null) {
                matched.add(key);
            }
            Integer device = null;
            for (Map.Entry<String, Integer> fd : opts.fileDevices().entrySet()) {
                if (fd.getKey().equals(shown) || fd.getKey().equals(p.getFileName().toString()) || sameFile(fd.getKey(), p)) {
                    device = fd.getValue();
                    matchedDevices.add(fd.getKey());
                }
            }
            out.add(new RunInput(p, shown, shown, key == null ? null : byName.get(key), null, device));
        }
        for (Map.Entry<String, Integer> fd : opts.fileDevices().entrySet()) {
            if (!matchedDevices.contains(fd.getKey())) {
                throw new BadInputException("--file-device " + fd.getKey() + "=...: no such file among the inputs " + inputs);
            }
            if (fd.getValue() == null || fd.getValue() < 0) {
                throw new BadInputException("--file-device " + fd.getKey() + "=" + fd.getValue() + ": expected a device id >= 0");
            }
        }
        for (String k : byName.keySet()) {
            if (!matched.contains(k)) {
                throw new BadInputException("--moment " + k + "=...: no such file among the inputs " + inputs);
            }
        }
        return out;
    }

    /** A file given twice would count its samples twice: refused, naming both places. */
    static void refuseRepeated(List<RunInput> files, RunDirectory runDir) throws BadInputException {
        Map<Path, Integer> seen = new LinkedHashMap<>();
        for (int i = 0; i < files.size(); i++) {
            Path key = files.get(i).path().toAbsolutePath().normalize();
            Integer before = seen.putIfAbsent(key, i);
            if (before != null) {
                String where = runDir != null
                        ? runDir.dir().resolve(RunManifest.FILE_NAME) + ": evidence[" + before + "] and evidence[" + i + "]"
                        : "inputs " + (before + 1) + " and " + (i + 1);
                throw new BadInputException(where + " name the same file " + files.get(i).shown()
                        + "; list each file once (its samples would otherwise be counted twice)");
            }
        }
    }

    /** A --moment key names an input when both are the same file once made absolute and normalized. */
    private static boolean sameFile(String key, Path input) {
        try {
            return Path.of(key).toAbsolutePath().normalize().equals(input.toAbsolutePath().normalize());
        } catch (InvalidPathException e) {
            return false;
        }
    }
}
