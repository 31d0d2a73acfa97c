package io.hbmledger.evidence.modelconfig;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.TextBytes;
import io.hbmledger.evidence.EvidenceFile;
import io.hbmledger.evidence.EvidenceFormat;
import io.hbmledger.evidence.EvidenceReader;
import io.hbmledger.evidence.FileHead;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.Quote;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a Hugging Face {@code config.json} ({@code model-config}): num_layers, hidden_size,
 * num_attention_heads, num_kv_heads, head_dim, vocab_size, num_experts and kv_bytes_per_token
 * (for the checkpoint dtype, {@code torch_dtype}), plus the MoE / MLA / MTP sizes the weights
 * estimate uses. These are estimates' inputs, not measurements. For MLA models num_kv_heads and
 * head_dim are not reported: {@code num_key_value_heads} does not size their KV cache.
 */
public final class ModelConfigReader implements EvidenceReader {

    public static final EvidenceFormat FORMAT = EvidenceFormat.MODEL_CONFIG;

    /** A PEFT adapter_config.json is recognised so that it is named, then reported as unknown. */
    private static final EvidenceFormat PEFT = EvidenceFormat.UNKNOWN;

    private static final List<String> MARKERS = List.of("\"model_type\"", "\"architectures\"",
            "\"num_hidden_layers\"", "\"hidden_size\"");

    @Override
    public Optional<EvidenceFormat> detect(FileHead head) {
        if (head.looksBinary()) {
            return Optional.empty();
        }
        String text = head.text();
        // an index, or a weights manifest (which embeds a config.json), is not a config
        if (!text.stripLeading().startsWith("{") || text.contains("\"weight_map\"") || text.contains("hbm-ledger/weights-manifest/")) {
            return Optional.empty();
        }
        if (text.contains("\"peft_type\"")) {
            return Optional.of(PEFT);
        }
        long hits = MARKERS.stream().filter(text::contains).count();
        return hits >= 2 ? Optional.of(FORMAT) : Optional.empty();
    }

    @Override
    public EvidenceFile read(Path file, String displayPath, FileHead head) throws IOException, EvidenceException {
        if (detect(head).filter(f -> f == PEFT).isPresent()) {
            return new EvidenceFile(displayPath, EvidenceFormat.UNKNOWN, List.of(), List.of("line 1: a PEFT adapter_config.json, "
                    + "not a model's config.json: it sizes nothing; read the adapter's adapter_model.safetensors for its bytes"));
        }
        return read(displayPath, TextBytes.utf8(file, displayPath));
    }

    @Override
    public Optional<EvidenceFile> readText(String text, String displayPath, EvidenceFormat format) throws EvidenceException {
        return format == PEFT ? Optional.empty() : Optional.of(read(displayPath, text));
    }

    /** Pure: text in, observations out. */
    public static EvidenceFile read(String display, String text) throws EvidenceException {
        ModelConfig c = ModelConfigParser.parse(display, text);
        List<Observation> obs = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        add(obs, c, Quantity.NUM_LAYERS, c.numLayers(), null);
        add(obs, c, Quantity.HIDDEN_SIZE, c.hiddenSize(), null);
        add(obs, c, Quantity.NUM_ATTENTION_HEADS, c.numAttentionHeads(), null);
        if (!c.isMla()) {
            String kvNote = c.derivedFrom("num_kv_heads") != null
                    ? " (derived: no KV head key, = " + c.derivedFrom("num_kv_heads") + ", MHA)" : null;
            add(obs, c, Quantity.NUM_KV_HEADS, c.numKvHeads(), kvNote);
            add(obs, c, Quantity.HEAD_DIM, c.headDim(), c.headDimDerived()
                    ? " (derived: hidden_size " + c.hiddenSize() + " / num_attention_heads " + c.numAttentionHeads() + ")" : null);
        }
        add(obs, c, Quantity.VOCAB_SIZE, c.vocabSize(), null);
        add(obs, c, Quantity.NUM_EXPERTS, c.numExperts(), null);
        add(obs, c, Quantity.NUM_SHARED_EXPERTS, c.isMoe() ? c.numSharedExperts() : null, c.derivedFrom("num_shared_experts") != null
                ? " (derived: no shared-expert count, one shared expert as " + c.derivedFrom("num_shared_experts") + " is given)" : null);
        add(obs, c, Quantity.NUM_EXPERTS_PER_TOKEN, c.isMoe() ? c.numExpertsPerToken() : null, null);
        add(obs, c, Quantity.INTERMEDIATE_SIZE, c.intermediateSize(), null);
        add(obs, c, Quantity.MOE_INTERMEDIATE_SIZE, c.isMoe() ? c.moeIntermediateSize() : null, c.derivedFrom("moe_intermediate_size") != null
                ? " (derived: no moe_intermediate_size key, = " + c.derivedFrom("moe_intermediate_size") + ")" : null);
        add(obs, c, Quantity.KV_LORA_RANK, c.kvLoraRank(), null);
        add(obs, c, Quantity.QK_ROPE_HEAD_DIM, c.isMla() ? c.qkRopeHeadDim() : null, null);
        if (c.numMtpLayers() > 0) {
            add(obs, c, Quantity.NUM_MTP_LAYERS, c.numMtpLayers(), null);
        }
        Integer eb = c.dtypeBytes();
        String kvDtype = c.torchDtype();
        Integer kvBits = c.quantization() == null ? null : c.quantization().kvCacheBits();
        if (kvBits != null && kvBits % 8 == 0 && kvBits > 0) {
            // the config names a KV cache dtype (compressed-tensors kv_cache_scheme): the contract sizes the KV by it
            eb = kvBits / 8;
            kvDtype = "kv_cache_scheme " + kvBits + "-bit";
        }
        if (eb == null) {
            // no line when the key is absent: line 1 would point at '{'
            warnings.add((c.torchDtype() == null ? "" : "line " + c.lineOf("torch_dtype") + ": ") + "checkpoint dtype "
                    + (c.torchDtype() == null ? "not given (no torch_dtype)" : Quote.doubleQuoted(c.torchDtype()) + " not known")
                    + "; kv_bytes_per_token is not reported");
        } else {
            Long kv = c.kvBytesPerToken(eb);
            if (kv != null) {
                String anchor = c.isMla() ? "kv_lora_rank" : "num_kv_heads";
                obs.add(Observation.bytes(Quantity.KV_BYTES_PER_TOKEN, kv, c.lineOf(anchor), c.kvFormula(eb, kvDtype)));
            }
        }
        if (c.numLayers() == null || c.hiddenSize() == null) {
            warnings.add("no layer count or hidden size in the file (num_hidden_layers, hidden_size); this config.json cannot size a model");
        }
        return new EvidenceFile(display, FORMAT, obs, warnings);
    }

    private static void add(List<Observation> obs, ModelConfig c, Quantity field, Integer v, String note) {
        if (v == null) {
            return;
        }
        // the value as written; a derived value shows its derivation instead
        String text = note == null ? Integer.toString(v) : v + note;
        obs.add(Observation.value(field, v, c.lineOf(field.contractName()), text));
    }
}
