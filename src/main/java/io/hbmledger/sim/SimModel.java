package io.hbmledger.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;

/**
 * SIMULATOR: the figures of a model that the simulated vLLM server needs: total weight bytes,
 * KV cache bytes per token and the model's context length.
 *
 * <p>A model directory gives them from its files: weight bytes from the safetensors headers
 * (8-byte little-endian header length, then a JSON object whose tensors carry
 * {@code data_offsets [begin, end)}; the tensor data is never read), else from
 * {@code model.safetensors.index.json}'s {@code metadata.total_size}, else estimated from
 * config.json; KV geometry from config.json. A bare model name uses the {@code --sim-*} options.
 *
 * @param weightBytes   total checkpoint bytes (all ranks together)
 * @param weightSource  where {@code weightBytes} came from, for the simulator's banner
 * @param layers        num_hidden_layers
 * @param kvHeads       num_key_value_heads (0 for MLA)
 * @param headDim       head_dim (or hidden_size / num_attention_heads)
 * @param mlaDim        kv_lora_rank + qk_rope_head_dim for MLA models, else 0
 * @param dtypeBytes    bytes per element of the KV cache (bf16/fp16: 2; fp8: 1)
 * @param maxModelLen   max_position_embeddings (capped by --max-model-len)
 * @param shards        number of *.safetensors files (for the loading progress line)
 */
public record SimModel(long weightBytes, String weightSource, int layers, int kvHeads, int headDim,
        int mlaDim, int dtypeBytes, int maxModelLen, int shards) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** KV cache bytes per token on one rank of a TP group; KV heads replicate when TP exceeds them. */
    public long kvBytesPerTokenPerRank(int tp) {
        if (mlaDim > 0) {
            return (long) layers * mlaDim * dtypeBytes;
        }
        int headsPerRank = Math.max(1, kvHeads / tp);
        return 2L * layers * headsPerRank * headDim * dtypeBytes;
    }

    /** Figures for {@code model}: a directory is read, a name takes the {@code --sim-*} values. */
    public static SimModel resolve(VllmArgs args, Map<String, String> env) throws IOException {
        Path dir = Path.of(args.model());
        int layers = Integer.parseInt(args.simOption("layers", env, null, "32"));
        int kvHeads = Integer.parseInt(args.simOption("kv-heads", env, null, "8"));
        int headDim = Integer.parseInt(args.simOption("head-dim", env, null, "128"));
        int mla = 0;
        int dtype = 2;
        int maxLen = Integer.parseInt(args.simOption("max-position", env, null, "32768"));
        long weights = -1;
        String source = null;
        int shards = 4;
        String simWeights = args.simOption("weights-gib", env, "HBM_SIM_WEIGHTS_GIB", null);
        if (Files.isDirectory(dir)) {
            Path config = dir.resolve("config.json");
            JsonNode c = Files.isRegularFile(config) ? JSON.readTree(config.toFile()) : null;
            if (c != null) {
                JsonNode text = c.has("text_config") ? c.get("text_config") : c;
                layers = text.path("num_hidden_layers").asInt(layers);
                int heads = text.path("num_attention_heads").asInt(32);
                kvHeads = text.path("num_key_value_heads").asInt(heads);
                int hidden = text.path("hidden_size").asInt(4096);
                headDim = text.path("head_dim").asInt(hidden / Math.max(1, heads));
                if (text.has("kv_lora_rank")) {
                    mla = text.path("kv_lora_rank").asInt() + text.path("qk_rope_head_dim").asInt();
                }
                // vLLM's --dtype auto runs float32 checkpoints in 16 bits ("auto" = FP16 for FP32 models)
                int checkpoint = dtypeBytes(text.path("torch_dtype").asText(c.path("torch_dtype").asText("bfloat16")));
                dtype = checkpoint == 4 ? 2 : checkpoint;
                maxLen = text.path("max_position_embeddings").asInt(maxLen);
            }
            long[] st = safetensorsBytes(dir);
            shards = (int) Math.max(1, st[1]);
            if (st[0] > 0) {
                weights = st[0];
                source = "safetensors headers in " + dir;
            } else {
                Path index = dir.resolve("model.safetensors.index.json");
                if (Files.isRegularFile(index)) {
                    long total = JSON.readTree(index.toFile()).path("metadata").path("total_size").asLong(-1);
                    if (total > 0) {
                        weights = total;
                        source = index + " metadata.total_size";
                    }
                }
            }
            if (weights < 0 && simWeights == null && c != null) {
                weights = estimateFromConfig(c.has("text_config") ? c.get("text_config") : c, dtype);
                source = "estimate from " + config;
            }
        }
        if (weights < 0 || (simWeights != null && source == null)) {
            double gib = Double.parseDouble(simWeights != null ? simWeights : "14.9575");
            weights = Math.round(gib * SimState.GIB);
            source = simWeights != null ? "--sim-weights-gib " + simWeights
                    : "default 14.9575 GiB (Llama-3.1-8B in bf16; pass --sim-weights-gib)";
        }
        if (args.maxModelLen() != null) {
            maxLen = args.maxModelLen();
        }
        String dtypeOpt = args.nonDefault().get("--dtype");
        if (dtypeOpt != null && !dtypeOpt.equals("auto")) {
            dtype = dtypeBytes(dtypeOpt.equals("half") ? "float16" : dtypeOpt);
        }
        String kvDtype = args.nonDefault().getOrDefault("--kv-cache-dtype", "auto");
        if (kvDtype.startsWith("fp8") || kvDtype.startsWith("int8")) {
            dtype = 1; // the KV cache element size; weights bytes are already fixed above
        }
        return new SimModel(weights, source, layers, kvHeads, headDim, mla, dtype, maxLen, shards);
    }

    static int dtypeBytes(String torchDtype) {
        return switch (torchDtype) {
            case "float32" -> 4;
            case "float8_e4m3fn", "int8", "uint8" -> 1;
            default -> 2;
        };
    }

    /** Parameter count of a decoder-only transformer from config.json, times bytes per element. */
    static long estimateFromConfig(JsonNode c, int dtype) {
        long hidden = c.path("hidden_size").asLong(4096);
        long layers = c.path("num_hidden_layers").asLong(32);
        long heads = c.path("num_attention_heads").asLong(32);
        long kvHeads = c.path("num_key_value_heads").asLong(heads);
        long headDim = c.path("head_dim").asLong(hidden / Math.max(1, heads));
        long inter = c.path("intermediate_size").asLong(4 * hidden);
        long vocab = c.path("vocab_size").asLong(32000);
        boolean tied = c.path("tie_word_embeddings").asBoolean(false);
        long experts = Math.max(1, c.path("num_local_experts").asLong(c.path("n_routed_experts").asLong(1)));
        long attn = hidden * heads * headDim * 2 + hidden * kvHeads * headDim * 2;
        long mlp = 3 * hidden * inter * experts;
        long params = vocab * hidden * (tied ? 1 : 2) + layers * (attn + mlp + 2 * hidden) + hidden;
        return params * dtype;
    }

    /** {total tensor bytes, file count} over *.safetensors in dir; 0 bytes when none is readable. */
    static long[] safetensorsBytes(Path dir) throws IOException {
        long total = 0;
        long files = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.safetensors")) {
            for (Path f : ds) {
                files++;
                long size = Files.size(f);
                try (InputStream in = Files.newInputStream(f)) {
                    byte[] len = in.readNBytes(8);
                    if (len.length < 8) {
                        continue;
                    }
                    long n = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getLong();
                    if (n <= 0 || n > Math.min(size - 8, 100L << 20)) {
                        continue; // not a safetensors file (e.g. a Git LFS pointer)
                    }
                    JsonNode header = JSON.readTree(in.readNBytes((int) n));
                    for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = it.next();
                        JsonNode off = e.getValue().path("data_offsets");
                        if (!e.getKey().equals("__metadata__") && off.size() == 2) {
                            total += off.get(1).asLong() - off.get(0).asLong();
                        }
                    }
                } catch (IOException e) {
                    // a broken header: the simulator falls back to the index or config estimate
                }
            }
        }
        return new long[] {total, files};
    }
}
