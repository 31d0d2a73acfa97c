package io.hbmledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.safetensors.SafetensorsWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * issue 14, items 4 and 5: inputs past a library's limits give one line naming the file (exit 2),
 * never a stack trace; implausible but readable inputs are read with a warning, never quietly.
 */
class ImplausibleInputTest {

    @TempDir
    Path tmp;

    static void assertOneLineRefusal(CliRun r, String file) {
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).contains(file).doesNotContain("Exception", "\tat ");
    }

    @Test
    void anNvidiaSmiCsvRowOverFastCsvsFieldLimitIsOneLineNamingTheLine() throws Exception {
        Path csv = tmp.resolve("smi.csv");
        Files.writeString(csv, "index, memory.used [MiB], memory.total [MiB]\n0, 512 MiB, 81920 MiB\n" + "1,".repeat(20_000) + "\n");
        CliRun r = CliRun.of("evidence", csv.toString());
        assertOneLineRefusal(r, csv + ":3: ");
        assertThat(r.err()).contains("16384 fields");
    }

    @Test
    void aSafetensorsHeaderNestedBeyondJacksonsLimitIsOneLine() throws Exception {
        Path model = Files.createDirectories(tmp.resolve("model"));
        Path st = model.resolve("model.safetensors");
        Files.write(st, SafetensorsWriter.file("{\"w\": " + "[".repeat(1100) + "]".repeat(1100) + "}", 0));
        for (String verb : new String[] {"evidence", "weights"}) {
            CliRun r = verb.equals("evidence") ? CliRun.of(verb, st.toString()) : CliRun.of(verb, model.toString(), "--tp", "1");
            assertOneLineRefusal(r, "model.safetensors");
            assertThat(r.err()).as(verb).contains("nesting depth (1001) exceeds the maximum allowed", "nested 3 levels deep");
        }
    }

    @Test
    void jsonAfterTheHeaderObjectAndADuplicateTensorNameAreWarnedAbout() throws Exception {
        Path st = tmp.resolve("model.safetensors");
        // "a" twice: the last entry (8 bytes of F32 x 2) counts, as in the safetensors library
        String header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}} {\"b\": 1}";
        Files.write(st, SafetensorsWriter.file(header, 8));
        CliRun r = CliRun.of("evidence", st.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out() + r.err()).contains("tensor name \"a\" appears more than once in the header (line 1); only the last entry is counted")
                .contains("the header holds more JSON after its object (from character 107)");
    }
}
