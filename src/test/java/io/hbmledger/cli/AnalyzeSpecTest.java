package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** The hand-built model of {@code analyze} reads every option into the field the command uses. */
class AnalyzeSpecTest {

    private static AnalyzeOptions parse(String... args) {
        CommandSpec spec = AnalyzeCommand.commandSpec();
        new CommandLine(spec).parseArgs(args);
        return AnalyzeSpec.options(spec);
    }

    @Test
    void everyOptionReachesItsField() {
        AnalyzeOptions o = parse("--format", "json", "--detail", "--explain", "kv_cache", "--tp", "2", "--dp", "3",
                "--devices", "4,5", "--devices", "6", "--moment", "a.txt=ready", "--moment", "b.log=startup",
                "--file-device", "b.log=1", "--server-pid", "10,11", "--model", "Qwen3", "--instant",
                "ready=2026-11-29T21:03:04+08:00", "--model-dir", "m", "--pp", "2", "--ep", "--dtype", "bf16",
                "--kv-cache-dtype", "fp8", "--all-devices", "--no-write", "--utilizations", "0.2,0.45",
                "--fail-on", "warn", "run1", "run2");
        assertThat(o.inputs()).containsExactly(Path.of("run1"), Path.of("run2"));
        assertThat(o.format()).isEqualTo(AnalyzeFormat.json);
        assertThat(o.detail()).isTrue();
        assertThat(o.explain()).isEqualTo("kv_cache");
        assertThat(o.tp()).isEqualTo(2);
        assertThat(o.dp()).isEqualTo(3);
        assertThat(o.devices()).containsExactly(4, 5, 6);
        assertThat(o.moments()).containsExactly(Map.entry("a.txt", "ready"), Map.entry("b.log", "startup"));
        assertThat(o.fileDevices()).containsExactly(Map.entry("b.log", 1));
        assertThat(o.serverPids()).containsExactly(10L, 11L);
        assertThat(o.model()).isEqualTo("Qwen3");
        assertThat(o.instants()).containsExactly(Map.entry("ready", "2026-11-29T21:03:04+08:00"));
        assertThat(o.modelDir()).isEqualTo(Path.of("m"));
        assertThat(o.pp()).isEqualTo(2);
        assertThat(o.ep()).isTrue();
        assertThat(o.dtype()).isEqualTo("bf16");
        assertThat(o.kvCacheDtype()).isEqualTo("fp8");
        assertThat(o.allDevices()).isTrue();
        assertThat(o.noWrite()).isTrue();
        assertThat(o.utilizations()).containsExactly(0.2, 0.45);
        assertThat(o.failOn()).isEqualTo(FailOn.warn);
    }

    @Test
    void absentOptionsAreUnsetNotZero() {
        AnalyzeOptions o = parse("run1");
        assertThat(o.format()).isEqualTo(AnalyzeFormat.text);
        assertThat(o.tp()).isNull();
        assertThat(o.dp()).isNull();
        assertThat(o.pp()).isNull();
        assertThat(o.devices()).isNull();
        assertThat(o.serverPids()).isNull();
        assertThat(o.failOn()).isNull();
        assertThat(o.detail()).isFalse();
        assertThat(o.moments()).isEmpty();
        assertThat(o.fileDevices()).isEmpty();
        assertThat(o.instants()).isEmpty();
        assertThat(o.utilizations()).isEqualTo(List.of());
    }
}
