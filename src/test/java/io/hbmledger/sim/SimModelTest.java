package io.hbmledger.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.testing.Corpus;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimModelTest {

    @TempDir
    Path dir;

    @Test
    void weightBytesComeFromSafetensorsHeadersAndKvGeometryFromConfig() throws IOException {
        Files.writeString(dir.resolve("config.json"), """
                {"num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
                 "hidden_size": 512, "torch_dtype": "bfloat16", "max_position_embeddings": 2048}
                """);
        // two tensors: 16 x 32 bf16 = 1024 bytes and 8 bf16 = 16 bytes
        writeSafetensors(dir.resolve("model.safetensors"),
                "{\"a\":{\"dtype\":\"BF16\",\"shape\":[16,32],\"data_offsets\":[0,1024]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[8],\"data_offsets\":[1024,1040]},"
                + "\"__metadata__\":{\"format\":\"pt\"}}", 1040);
        SimModel m = SimModel.resolve(VllmArgs.parse(new String[] {"serve", dir.toString()}, Map.of()), Map.of());
        assertThat(m.weightBytes()).isEqualTo(1040);
        assertThat(m.weightSource()).startsWith("safetensors headers");
        assertThat(m.maxModelLen()).isEqualTo(2048);
        // head_dim = 512 / 8 = 64; per token at TP 1: 2 x 4 layers x 2 heads x 64 x 2 bytes = 2048
        assertThat(m.kvBytesPerTokenPerRank(1)).isEqualTo(2048);
        // TP 4 > 2 KV heads: one head per rank (replicated): 2 x 4 x 1 x 64 x 2 = 1024
        assertThat(m.kvBytesPerTokenPerRank(4)).isEqualTo(1024);
    }

    @Test
    void mlaModelUsesLatentAndRopeDims() throws IOException {
        Path config = Corpus.file("model-config/deepseek-r1_DeepseekV3ForCausalLM.config.json");
        Files.copy(config, dir.resolve("config.json"));
        SimModel m = SimModel.resolve(VllmArgs.parse(new String[] {"serve", dir.toString(),
            "--sim-weights-gib", "600"}, Map.of()), Map.of());
        // DeepSeek-R1 config: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64, bf16:
        // 61 x 576 x 2 = 70272 bytes per token, the same on every TP rank
        assertThat(m.kvBytesPerTokenPerRank(16)).isEqualTo(70272);
        assertThat(m.weightBytes()).isEqualTo(600L * SimState.GIB);
    }

    private static void writeSafetensors(Path f, String header, int dataBytes) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = Files.newOutputStream(f)) {
            out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length).array());
            out.write(h);
            out.write(new byte[dataBytes]);
        }
    }
}
