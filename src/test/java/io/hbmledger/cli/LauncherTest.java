package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ./hbm-ledger launcher's first-run build, with SIMULATED {@code mvn} and {@code java} on
 * PATH (a real build inside the test run would take minutes). The fake mvn behaves as Maven 3.8.7
 * from Debian/Ubuntu (jansi 2.4 without its native library) was seen to behave: {@code mvn -q -B
 * -Dstyle.color=never package 2>&1 | cat -v} printed {@code ^[[0m^[[0m} before and after its
 * output, and nothing once the JVM had {@code -Djansi.noreset=true}.
 */
class LauncherTest {

    private static final String FAKE_MVN = """
            #!/usr/bin/env bash
            # SIMULATOR of Debian's Maven 3.8.7 + jansi 2.4: a colour reset per console stream taken down
            printf '%s\\n' "${MAVEN_OPTS:-}" > "$FAKE_LOG/maven_opts"
            reset() { case " ${MAVEN_OPTS:-} " in *" -Djansi.noreset=true "*) ;; *) printf '\\033[0m\\033[0m' ;; esac; }
            reset
            if [ -n "${FAKE_MVN_FAIL:-}" ]; then
              echo "[ERROR] COMPILATION ERROR : "
              echo "[ERROR] $PWD/src/main/java/Broken.java:[1,24] illegal start of expression"
              reset
              exit 1
            fi
            mkdir -p target && echo built > target/hbm-ledger.jar
            reset
            """;

    private static final String FAKE_JAVA = """
            #!/usr/bin/env bash
            printf 'LC_ALL=%s LC_CTYPE=%s\\n' "${LC_ALL-unset}" "${LC_CTYPE-unset}" > "$FAKE_LOG/java_locale"
            echo "fake java $*"
            """;

    /** SIMULATOR of glibc's locale(1): the charmap of LC_ALL / LC_CTYPE / LANG, and $FAKE_LOCALES as the installed list. */
    private static final String FAKE_LOCALE = """
            #!/usr/bin/env bash
            echo "$1" >> "$FAKE_LOG/locale_calls"
            case "$1" in
              charmap) case "${LC_ALL:-${LC_CTYPE:-${LANG:-C}}}" in *.UTF-8|*.utf8) echo UTF-8 ;; *) echo ANSI_X3.4-1968 ;; esac ;;
              -a) printf '%s\\n' $FAKE_LOCALES ;;
            esac
            """;

    @TempDir
    Path dir;

    private Path project;
    private Path bin;

    @BeforeEach
    void layout() throws IOException {
        project = Files.createDirectories(dir.resolve("project"));
        Files.copy(Path.of("hbm-ledger"), project.resolve("hbm-ledger"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(project.resolve("src/main/java"));
        Files.writeString(project.resolve("pom.xml"), "<project/>\n");
        bin = Files.createDirectories(dir.resolve("bin"));
        script(bin.resolve("mvn"), FAKE_MVN);
        script(bin.resolve("java"), FAKE_JAVA);
        script(bin.resolve("locale"), FAKE_LOCALE);
    }

    private static void script(Path p, String text) throws IOException {
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Run(int exit, String out, String err) {
    }

    private Run launch(boolean failBuild) throws Exception {
        return launch(failBuild, java.util.Map.of("LANG", "C.UTF-8"), "C C.utf8 POSIX");
    }

    private Run launch(boolean failBuild, java.util.Map<String, String> locale, String installed) throws Exception {
        return launch(failBuild, locale, installed, project.resolve("hbm-ledger").toString(), "--version");
    }

    private Run launch(String... command) throws Exception {
        return launch(false, java.util.Map.of("LANG", "C.UTF-8"), "C C.utf8 POSIX", command);
    }

    private Run launch(boolean failBuild, java.util.Map<String, String> locale, String installed, String... command)
            throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
        pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
        pb.environment().putAll(locale);
        pb.environment().put("FAKE_LOCALES", installed);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("FAKE_LOG", dir.toString());
        pb.environment().put("MAVEN_OPTS", "-Xmx512m");
        if (failBuild) {
            pb.environment().put("FAKE_MVN_FAIL", "1");
        }
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    @Test
    void firstRunBuildPrintsNoColourCodesAndKeepsStdoutClean() throws Exception {
        Run r = launch(false);
        assertThat(r.exit()).as(r.err()).isZero();
        // the first build says how long it takes; Maven's own progress (here a fake Maven's silence) follows
        assertThat(r.err()).isEqualTo("hbm-ledger: building target/hbm-ledger.jar (first run or sources changed; the first"
                + " build downloads the dependencies and takes 1-3 minutes, a rebuild about 30 s). Maven's progress follows.\n");
        // no class-data archive was built here: none is passed; a verb without inputs starts with C1 and the serial GC
        assertThat(r.out()).isEqualTo("fake java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar " + project.toRealPath()
                + "/target/hbm-ledger.jar --version\n");
        // the user's own Maven options are kept
        assertThat(Files.readString(dir.resolve("maven_opts")).strip()).isEqualTo("-Xmx512m -Djansi.noreset=true");
    }

    @Test
    void aFailedBuildShowsMavensErrorsAndExitsNonZero() throws Exception {
        Run r = launch(true);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("[ERROR] COMPILATION ERROR", "Broken.java:[1,24] illegal start of expression")
                .contains("hbm-ledger: the build failed (Maven's output above says why)")
                .doesNotContain("\u001b");
        assertThat(r.out()).isEmpty();
    }

    private String jarArg() throws IOException {
        return "-jar " + project.toRealPath() + "/target/hbm-ledger.jar";
    }

    @Test
    void throughASymlinkInAnotherFolderTheProjectIsWhereTheLinkPoints() throws Exception {
        // ~/bin/hbm-ledger -> the project's launcher: the link's folder has no pom.xml; the launcher
        // took it for the project and ran Maven there ("there is no POM in this directory")
        Path userBin = Files.createDirectories(dir.resolve("my bin"));
        Files.createSymbolicLink(userBin.resolve("hbm-ledger"), project.resolve("hbm-ledger"));
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.createSymbolicLink(other.resolve("hl"), Path.of("../project/hbm-ledger"));
        Files.createSymbolicLink(other.resolve("chained"), Path.of("hl"));
        for (String link : new String[] {userBin.resolve("hbm-ledger").toString(), "other/hl", "other/chained"}) {
            Run r = launch(link, "--version");
            assertThat(r.exit()).as(link + ": " + r.err()).isZero();
            assertThat(r.out()).as(link).isEqualTo("fake java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC " + jarArg()
                    + " --version\n");
            assertThat(userBin.resolve("target")).as(link).doesNotExist();
            assertThat(other.resolve("target")).as(link).doesNotExist();
        }
        // as `bash hbm-ledger` from the project's folder: no slash in the script's name
        Run r = launch("bash", "-c", "cd project && bash hbm-ledger --version");
        assertThat(r.out()).isEqualTo("fake java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC " + jarArg() + " --version\n");
    }

    @Test
    void theArchiveIsMappedWhereItWasDumpedAndInputsOf64MibInAllKeepTheOptimisingCompiler() throws Exception {
        assertThat(launch(false).exit()).isZero();  // builds the (fake) jar
        Path jar = project.resolve("target/hbm-ledger.jar");
        Path jsa = Files.writeString(project.resolve("target/hbm-ledger.jsa"), "archive\n");
        Files.setLastModifiedTime(jsa, Files.getLastModifiedTime(jar));
        String archive = "-XX:SharedArchiveFile=" + project.toRealPath() + "/target/hbm-ledger.jsa -Xshare:auto"
                + " -Xlog:cds=off -Xlog:cds+dynamic=off -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0";
        // sparse files: du -b counts their apparent size, 40 + 30 MiB = 73400320 B >= 64 MiB = 67108864 B
        Path inputs = Files.createDirectories(dir.resolve("export dir"));
        Path a = sparse(inputs.resolve("npu mem 1.csv"), 40L << 20);
        Path b = sparse(inputs.resolve("npu mem 2.csv"), 30L << 20);
        Path justUnder = sparse(inputs.resolve("under.csv"), (64L << 20) - 1);
        String launcher = project.resolve("hbm-ledger").toString();

        Run one = launch(launcher, "evidence", a.toString());
        assertThat(one.out()).isEqualTo("fake java " + archive + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC " + jarArg()
                + " evidence " + a + "\n");
        Run under = launch(launcher, "analyze", justUnder.toString(), "--format", "json");
        assertThat(under.out()).contains(archive + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Run both = launch(launcher, "evidence", a.toString(), b.toString());
        // and Jackson reaches C2 later: its compiles no longer hold up the exit (issue 17)
        assertThat(both.out()).isEqualTo("fake java " + archive + " -XX:CompileCommand=quiet"
                + " -XX:CompileCommand=CompileThresholdScaling,com.fasterxml.jackson.*::*,10.0"
                + " -XX:CompileCommand=CompileThresholdScaling,io.hbmledger.report.*::*,10.0"
                + " -XX:CompileCommand=CompileThresholdScaling,io.hbmledger.evidence.msprof.RowTemplate::refit,8.0"
                + " -XX:+UseSerialGC " + jarArg()
                + " evidence " + a + " " + b + "\n");
        Run folder = launch(launcher, "analyze", inputs.toString());
        assertThat(folder.out()).doesNotContain("TieredStopAtLevel");

        // an archive older than the jar belongs to another build: not passed
        Files.setLastModifiedTime(jsa, FileTime.fromMillis(
                Files.getLastModifiedTime(jar).toMillis() - 60_000));
        assertThat(launch(launcher, "--version").out()).isEqualTo("fake java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
                + jarArg() + " --version\n");
    }

    private static Path sparse(Path p, long bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return p;
    }

    private String javaLocale() throws IOException {
        return Files.readString(dir.resolve("java_locale")).strip();
    }

    @Test
    void underANonUtf8LocaleJavaRunsUnderCUtf8WhenTheSystemHasIt() throws Exception {
        // Java takes the file-name encoding from the locale: LC_ALL=C made "日本語" unusable as a path
        assertThat(launch(false, java.util.Map.of("LC_ALL", "C"), "C C.utf8 POSIX").exit()).isZero();
        assertThat(javaLocale()).isEqualTo("LC_ALL=C.utf8 LC_CTYPE=unset");
        // LANG=C alone: only the character type is changed, as Python's PEP 538 does
        assertThat(launch(false, java.util.Map.of("LANG", "C"), "C C.UTF-8 POSIX").exit()).isZero();
        assertThat(javaLocale()).isEqualTo("LC_ALL=unset LC_CTYPE=C.UTF-8");
        // a UTF-8 locale is left alone, and so is a system without C.UTF-8
        launch(false, java.util.Map.of("LANG", "en_US.UTF-8"), "C C.utf8 POSIX en_US.utf8");
        assertThat(javaLocale()).isEqualTo("LC_ALL=unset LC_CTYPE=unset");
        launch(false, java.util.Map.of("LC_ALL", "C"), "C POSIX");
        assertThat(javaLocale()).isEqualTo("LC_ALL=C LC_CTYPE=unset");
    }

    @Test
    void theCompileCommandsNameClassesAndMethodsThatExist() throws Exception {
        // a renamed method would leave its command matching nothing, without a word from the JVM
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("CompileThresholdScaling,([\\w.*]+)::([\\w*]+),")
                .matcher(Files.readString(Path.of("hbm-ledger")));
        int found = 0;
        while (m.find()) {
            found++;
            String cls = m.group(1);
            String method = m.group(2);
            if (cls.endsWith(".*")) {
                String pkg = cls.substring(0, cls.length() - 2);
                assertThat(Thread.currentThread().getContextClassLoader().getResource(pkg.replace('.', '/')))
                        .as(pkg).isNotNull();
                continue;
            }
            assertThat(java.util.Arrays.stream(Class.forName(cls).getDeclaredMethods()).map(java.lang.reflect.Method::getName))
                    .as(cls + "::" + method).contains(method);
        }
        assertThat(found).isEqualTo(3);
    }

    @Test
    void underCUtf8ItselfLocaleIsNotAsked() throws Exception {
        // locale(1) costs ~2 ms of every run; C.UTF-8 in force is the one locale it could switch to
        Path calls = dir.resolve("locale_calls");
        for (var env : List.of(java.util.Map.of("LANG", "C.UTF-8"), java.util.Map.of("LC_ALL", "C.utf8", "LANG", "C"),
                java.util.Map.of("LC_CTYPE", "C.UTF-8"))) {
            Files.deleteIfExists(calls);
            assertThat(launch(false, env, "C C.utf8 POSIX").exit()).as(env.toString()).isZero();
            assertThat(calls).as(env.toString()).doesNotExist();
            assertThat(javaLocale()).as(env.toString()).isEqualTo("LC_ALL=" + env.getOrDefault("LC_ALL", "unset")
                    + " LC_CTYPE=" + env.getOrDefault("LC_CTYPE", "unset"));
        }
        // LC_ALL overrides a C.UTF-8 LANG: asked, and switched
        assertThat(launch(false, java.util.Map.of("LANG", "C.UTF-8", "LC_ALL", "C"), "C C.utf8 POSIX").exit()).isZero();
        assertThat(calls).exists();
        assertThat(javaLocale()).isEqualTo("LC_ALL=C.utf8 LC_CTYPE=unset");
        // "c.utf8" is no locale glibc knows: asked
        Files.deleteIfExists(calls);
        launch(false, java.util.Map.of("LC_ALL", "c.utf8"), "C C.utf8 POSIX");
        assertThat(calls).exists();
    }
}

