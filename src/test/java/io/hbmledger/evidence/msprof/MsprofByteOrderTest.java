package io.hbmledger.evidence.msprof;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The readers may be handed bytes from buffers of either byte order ({@link MappedWindows}, a
 * {@link ByteSource}); a buffer's order is the platform's choice on aarch64 (Kunpeng) as on x86,
 * so the scan must not depend on it.
 * Each real file is scanned through in-memory windows of both byte orders, small and odd-sized
 * so that rows and the fast path's word reads cross window edges, and through the file's own
 * mapping and positional reads: all give the same summary.
 */
class MsprofByteOrderTest {

    private static MsprofFileResult read(Path p, UnaryOperator<CsvFileScan> tune) throws Exception {
        MsprofPass pass = MsprofPass.of(Map.of("mid", 1_736_408_883_750_000L)).withWindowFrom("mid");
        return TunedRead.read(p, p.getFileName().toString(), pass, 2, tune);
    }

    @ParameterizedTest
    @ValueSource(strings = {"msinsight_level1_rank0_npu_module_mem.csv", "msinsight_level1_rank0_memory_record.csv",
        "msinsight_server_rank0_npu_module_mem_crlf.csv", "msinsight_server_rank0_memory_record_5col.csv",
        "msinsight_level1_rank0_operator_memory.csv", "msinsight_server_rank1_static_op_mem.csv"})
    void bothByteOrdersGiveTheSameSummary(String name) throws Exception {
        Path p = Corpus.file("msprof/" + name);
        byte[] bytes = Files.readAllBytes(p);
        MsprofFileResult positional = read(p, s -> s.withWindows(ch -> null));
        MsprofFileResult mapped = read(p, UnaryOperator.identity());
        assertThat(mapped).isEqualTo(positional);
        for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
            List<ByteOrder> seen = java.util.Collections.synchronizedList(new ArrayList<>());
            MsprofFileResult windowed = read(p, s -> s.withPartBytes(997).withWindows(ch -> new MappedWindows(
                    (at, length) -> {
                        ByteBuffer w = ByteBuffer.wrap(bytes, (int) at, length).slice().order(order);
                        seen.add(w.order());
                        return w;
                    }, w -> { }, bytes.length, 4093)));
            assertThat(windowed).as("windows in %s", order).isEqualTo(positional);
            assertThat(seen).as("the scan read through the %s windows", order).isNotEmpty().containsOnly(order);
        }
    }
}
