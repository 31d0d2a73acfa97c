package io.hbmledger.weights;

import io.hbmledger.evidence.modelconfig.ModelConfig;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Works out each device's share of a checkpoint under a TP / DP / PP / EP layout, by vLLM's
 * sharding rules. Pure. The shares are estimates: they follow the layer classes vLLM builds
 * for each tensor name, not a measurement.
 *
 * <p>Rules followed (vLLM {@code model_executor/layers}):
 * <ul>
 * <li>{@code linear.py} ColumnParallelLinear / MergedColumnParallelLinear: output dim / tp;
 *     RowParallelLinear: input dim / tp, bias whole; ReplicatedLinear: whole.</li>
 * <li>{@code linear.py} QKVParallelLinear: {@code num_heads = total / tp}; when
 *     {@code tp >= total_num_kv_heads} each rank keeps one KV head
 *     ({@code num_kv_head_replicas = tp / total_num_kv_heads}).</li>
 * <li>{@code vocab_parallel_embedding.py}: {@code pad_vocab_size(vocab, 64)} then
 *     {@code num_embeddings_per_partition = divide(padded, tp)}; ParallelLMHead the same; a tied
 *     lm_head shares the embedding.</li>
 * <li>{@code fused_moe/config.py} FusedMoEParallelConfig.make: MoE layers see tp x dp devices
 *     ({@code flatten_tp_across_dp}); without EP each expert is split over them, with EP
 *     ({@code --enable-expert-parallel}) whole experts are spread, {@code determine_expert_map}
 *     giving ceil(E / ep) to the first ranks.</li>
 * <li>DeepSeek MLA ({@code models/deepseek_v2.py}): q_a_proj and kv_a_proj_with_mqa are
 *     ReplicatedLinear, q_b_proj / kv_b_proj ColumnParallel, o_proj RowParallel; the router
 *     gate and e_score_correction_bias are replicated; MTP layers (index >= num_hidden_layers)
 *     are skipped by the main model and loaded by the MTP drafter.</li>
 * <li>{@code distributed/utils.py} get_pp_indices: layers // pp per stage, the remainder going
 *     one each to the stages before the last; embedding on the first stage, final norm and
 *     lm_head on the last.</li>
 * <li>{@code config.py} _get_and_verify_dtype: {@code --dtype auto} serves float32 checkpoints
 *     in 16 bits (float16; bfloat16 from v0.10.1), other checkpoints in their torch_dtype. The
 *     model's parameters are created in that dtype and unquantized checkpoint tensors are cast
 *     into them, so an explicit {@code --dtype} resizes every unquantized float tensor.</li>
 * <li>{@code quantization/fp8.py} Fp8LinearMethod / Fp8MoEMethod: an FP8-serialized checkpoint
 *     keeps its weights in float8 (1 byte) and its block scales in float32, whatever
 *     {@code --dtype} says; quantized integer tensors (GPTQ/AWQ packs) stay as stored too.</li>
 * <li>Ascend: NPUs up to the 910 series have no FP8. vllm-ascend serves quantized models
 *     through {@code --quantization ascend} with msModelSlim W8A8 weights (vllm-ascend docs,
 *     user_guide/feature_guide/quantization), and Huawei's DeepSeek guide (hiascend
 *     techArticles 20250222-1) says FP8 weights cannot be loaded: they are converted, to W8A8
 *     (int8, still about 1 byte per weight) or to BF16 (2 bytes). {@link PlanOptions#fp8AsBf16()}
 *     counts the BF16 case; the default counts FP8 as stored and says so in a note.</li>
 * </ul>
 */
public final class WeightsPlanner {

    /** vLLM's DEFAULT_VOCAB_PADDING_SIZE. */
    public static final int VOCAB_PADDING = 64;

    private static final Pattern EXPERT_INDEX = Pattern.compile("\\.experts\\.(\\d+)\\.");

    private final Checkpoint ckpt;
    private final ParallelLayout layout;
    private final PlanOptions opts;
    private final ModelConfig config;
    private final List<String> notes = new ArrayList<>();
    private final boolean halveFloat32;
    private final int experts;

    private WeightsPlanner(Checkpoint ckpt, ParallelLayout layout, PlanOptions opts) {
        this.ckpt = ckpt;
        this.layout = layout;
        this.opts = opts;
        this.config = ckpt.config();
        this.halveFloat32 = servedElementBytes() == 2 && config != null && Integer.valueOf(4).equals(config.dtypeBytes());
        this.experts = expertCount();
    }

    public static WeightsPlan plan(Checkpoint ckpt, ParallelLayout layout, PlanOptions opts) {
        return new WeightsPlanner(ckpt, layout, opts).run();
    }

    /** Layers on the PP stage holding the most (vLLM get_pp_indices without VLLM_PP_LAYER_PARTITION). */
    public static int maxStageLayers(int layers, int pp) {
        int max = 0;
        for (int s = 0; s < pp; s++) {
            max = Math.max(max, stageLayers(layers, pp)[s]);
        }
        return max;
    }

    static int[] stageLayers(int layers, int pp) {
        int[] parts = new int[pp];
        java.util.Arrays.fill(parts, layers / pp);
        int rem = layers % pp;
        for (int i = 2; i < rem + 2; i++) {
            parts[pp - i] += 1;
        }
        return parts;
    }

    private int stageOf(TensorRole role) {
        int pp = layout.pp();
        if (pp == 1) {
            return 0;
        }
        if (role.mtp()) {
            return pp - 1;
        }
        if (role.layer() >= 0 && config != null && config.numLayers() != null) {
            int[] parts = stageLayers(config.numLayers(), pp);
            int start = 0;
            for (int s = 0; s < pp; s++) {
                if (role.layer() < start + parts[s]) {
                    return s;
                }
                start += parts[s];
            }
            return pp - 1;
        }
        return switch (role.kind()) {
            case LM_HEAD, NORM -> pp - 1;
            default -> 0;
        };
    }

    private WeightsPlan run() {
        int pp = layout.pp();
        long[] stage = new long[pp];
        // rows keyed by component and rule; per-device bytes kept per stage
        Map<ModelPart, Map<ShardRule, long[]>> rows = new EnumMap<>(ModelPart.class);
        boolean tiedHeadSeen = false;
        long mtpShare = 0;
        long mlaDerived = 0;
        Map<ModelPart, Map<ShardRule, java.util.TreeSet<String>[]>> dtypes = new EnumMap<>(ModelPart.class);
        long[] altStage = new long[pp];
        long fp8Params = 0;
        String fp8Name = null;
        for (CheckpointTensor t : ckpt.tensors()) {
            TensorRole role = TensorRole.of(t.name(), config);
            long served = servedBytes(t, role, opts.fp8AsBf16());
            if (!role.mtp() && !role.scale() && t.name().endsWith("kv_b_proj.weight") && config != null && config.isMla()) {
                // mla/common.py process_weights_after_loading: W_UK_T and W_UV come from kv_b_proj
                // dequantized to the activation dtype (get_and_maybe_dequant_weights), per rank
                mlaDerived += ceilDiv(t.elements(), layout.tp()) * servedElementBytes();
            }
            Share share = share(t, role, served);
            ShardRule rule = share.rule;
            long per = share.bytes;
            if (role.kind() == TensorRole.Kind.LM_HEAD && !role.mtp() && config != null && config.tieWordEmbeddings()) {
                rule = ShardRule.TIED;
                per = 0;
                tiedHeadSeen = true;
            }
            if (role.mtp() && !opts.drafterLoaded()) {
                mtpShare += per;
                rule = ShardRule.NOT_LOADED;
                per = 0;
            }
            int s = stageOf(role);
            if (isFp8(t.dtype()) && !role.scale() && rule != ShardRule.NOT_LOADED) {
                fp8Params += t.elements();
                fp8Name = t.dtype();
            }
            // the same tensor under the other FP8 choice, for the note that names both figures
            long altPer = rule == ShardRule.TIED || rule == ShardRule.NOT_LOADED ? 0
                    : share(t, role, servedBytes(t, role, !opts.fp8AsBf16())).bytes;
            altStage[s] += altPer;
            @SuppressWarnings("unchecked")
            java.util.TreeSet<String>[] dt = dtypes.computeIfAbsent(role.component(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(rule, k -> new java.util.TreeSet[] {new java.util.TreeSet<String>(), new java.util.TreeSet<String>()});
            dt[0].add(t.dtype());
            String sd = servedDtype(t, role, opts.fp8AsBf16());
            if (sd != null) {
                dt[1].add(sd);
            }
            long[] acc = rows.computeIfAbsent(role.component(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(rule, k -> new long[3 + pp]);
            acc[0]++;
            acc[1] += t.bytes();
            acc[2] += t.elements();
            acc[3 + s] += per;
            stage[s] += per;
            if (pp > 1 && role.kind() == TensorRole.Kind.EMBED && !role.mtp() && config != null && config.tieWordEmbeddings()) {
                // models/llama.py: with tied embeddings the last PP rank builds its own embed_tokens for lm_head to tie to
                acc[3 + pp - 1] += per;
                stage[pp - 1] += per;
                altStage[pp - 1] += altPer;
                String note = "tied embeddings under PP: the last stage holds its own copy of the embedding for lm_head";
                if (!notes.contains(note)) {
                    notes.add(note);
                }
            }
        }
        int heaviest = 0;
        for (int s = 1; s < pp; s++) {
            if (stage[s] > stage[heaviest]) {
                heaviest = s;
            }
        }
        List<ComponentShare> out = new ArrayList<>();
        for (Map.Entry<ModelPart, Map<ShardRule, long[]>> c : rows.entrySet()) {
            for (Map.Entry<ShardRule, long[]> r : c.getValue().entrySet()) {
                long[] a = r.getValue();
                java.util.TreeSet<String>[] dt = dtypes.get(c.getKey()).get(r.getKey());
                out.add(new ComponentShare(c.getKey(), r.getKey(), (int) a[0], a[2], a[1], a[3 + heaviest], formula(r.getKey()),
                        String.join("/", dt[0]), dt[1].isEmpty() ? null : String.join("/", dt[1])));
            }
        }
        if (config != null && config.tieWordEmbeddings() && !tiedHeadSeen) {
            out.add(new ComponentShare(ModelPart.LM_HEAD, ShardRule.TIED, 0, 0, 0, 0, formula(ShardRule.TIED)));
            out.sort(java.util.Comparator.comparing(ComponentShare::component));
        }
        if (mtpShare > 0) {
            notes.add("MTP layers are not in the figure: vLLM's main model skips them; with MTP speculative decoding the drafter adds about "
                    + mtpShare + " bytes per device (same sharding)");
        }
        if (mlaDerived > 0) {
            notes.add("MLA: after loading, vLLM derives W_UK_T / W_UV from kv_b_proj in " + servedElementBytes()
                    + "-byte elements (vllm-ascend then frees kv_b_proj): about " + mlaDerived
                    + " bytes per device beyond the figure, inside vLLM's 'model weights' number");
        }
        if (halveFloat32) {
            notes.add("the checkpoint is float32 (torch_dtype) but vLLM --dtype auto serves float32 models in 16 bits "
                    + "(float16; bfloat16 from vLLM 0.10.1): per-device figures are at 2 bytes per element, half the checkpoint's");
        }
        if (layout.tp() > 1 && config != null && !config.isMla() && config.numKvHeads() != null && layout.tp() > config.numKvHeads()) {
            notes.add("TP " + layout.tp() + " > " + config.numKvHeads() + " KV heads: each rank keeps a whole KV head, so k/v projections are replicated "
                    + (layout.tp() / config.numKvHeads()) + "x");
        }
        if (config != null && config.numAttentionHeads() != null && config.numAttentionHeads() % layout.tp() != 0) {
            notes.add(config.numAttentionHeads() + " attention heads do not divide by TP " + layout.tp()
                    + ": vLLM refuses this layout (divide() in QKVParallelLinear); the figure assumes an even split");
        }
        Integer kvHeads = config == null || config.isMla() ? null : config.numKvHeads();
        if (kvHeads != null && kvHeads > 0 && kvHeads % layout.tp() != 0 && layout.tp() % kvHeads != 0) {
            notes.add(kvHeads + " KV heads and TP " + layout.tp() + " do not divide either way: vLLM refuses this layout");
        }
        if (experts > 0 && layout.ep() && experts % layout.moeGroup() != 0) {
            notes.add(experts + " experts over EP " + layout.moeGroup() + " do not divide evenly: the first ranks hold "
                    + ceilDiv(experts, layout.moeGroup()) + " experts, the figure is for them");
        }
        if (fp8Params > 0) {
            long alt = 0;
            for (long a : altStage) {
                alt = Math.max(alt, a);
            }
            String both = String.format(Locale.ROOT, "%.2f GiB (%d B)", alt / 1073741824.0, alt);
            if (opts.fp8AsBf16()) {
                notes.add(fp8Params + " " + fp8Name + " weight parameters are counted converted to 16 bits (--fp8-weights bf16: 2 B each, "
                        + "block scales dropped), as an FP8 checkpoint converted to BF16 for Ascend is served; counted as stored "
                        + "(FP8, 1 B each, as vLLM on FP8 GPUs keeps them) the heaviest device would hold " + both);
            } else {
                notes.add(fp8Params + " " + fp8Name + " weight parameters are counted as stored, 1 B each, with their float32 block scales: "
                        + "that is how vLLM keeps FP8 weights on GPUs with FP8 (Fp8LinearMethod), whatever --dtype says. "
                        + "Ascend NPUs have no FP8 and vllm-ascend does not load FP8 checkpoints: they are served converted, "
                        + "to W8A8 with msModelSlim (int8, still about 1 B per weight: close to this figure) or to BF16 "
                        + "(2 B per weight: about " + both + " on the heaviest device; --fp8-weights bf16 counts that)");
            }
        }
        if (layout.ep() && experts == 0) {
            notes.add("--ep has no effect: the model has no routed experts, so nothing is spread by expert parallelism");
        }
        if (opts.drafterLoaded() && ckpt.tensors().stream().noneMatch(t -> TensorRole.of(t.name(), config).mtp())) {
            notes.add("--mtp adds nothing: the checkpoint has no MTP layers (no num_nextn_predict_layers, no layers past num_hidden_layers)");
        }
        if (layout.pp() > 1 && config != null && config.numLayers() != null && layout.pp() > config.numLayers()) {
            notes.add("PP " + layout.pp() + " exceeds the " + config.numLayers() + " decoder layers: some stages hold no layer at all");
        }
        if (ckpt.tensors().stream().anyMatch(t -> t.name().contains("lora_A") || t.name().contains("lora_B"))) {
            notes.add("these are LoRA adapter tensors (lora_A / lora_B): vLLM loads adapters into its LoRA slots (--max-loras), "
                    + "not into the base model's weights; the sharding rules above are for base-model layers");
        }
        if (!"auto".equalsIgnoreCase(opts.dtype() == null ? "auto" : opts.dtype())) {
            notes.add("--dtype " + opts.dtype() + ": unquantized float tensors are counted at " + servedElementBytes()
                    + " B per element, as vLLM casts them on loading; quantized tensors stay as stored");
        }
        if (ckpt.source() == Checkpoint.Source.CONFIG) {
            notes.add("tensor shapes are estimated from config.json (no safetensors headers): totals are estimates too");
        }
        if (layout.dp() > 1) {
            notes.add("DP " + layout.dp() + ": dense weights are whole on every DP rank; only MoE experts are split over tp x dp");
        }
        List<String> all = new ArrayList<>(ckpt.notes());
        all.addAll(notes);
        KvCacheEstimate kv = null;
        if (config != null) {
            int eb = kvElementBytes();
            kv = KvCacheEstimate.of(config, layout, eb, kvDtypeName(), opts.blockSize());
        }
        List<Long> stages = new ArrayList<>();
        for (long s : stage) {
            stages.add(s);
        }
        return new WeightsPlan(layout, ckpt.source(), servedDtypeName(), out, ckpt.totalBytes(), stage[heaviest], heaviest,
                stages, kv, mlaDerived, all);
    }

    private record Share(ShardRule rule, long bytes) {
    }

    private Share share(CheckpointTensor t, TensorRole role, long served) {
        int tp = layout.tp();
        boolean vector = t.shape().size() <= 1;
        boolean scalar = t.elements() <= 1;
        if (scalar) {
            return new Share(ShardRule.REPLICATED, served);
        }
        return switch (role.kind()) {
            case EMBED, LM_HEAD -> {
                long rows = t.shape().isEmpty() ? 1 : t.shape().get(0);
                long padded = ceilDiv(rows, VOCAB_PADDING) * VOCAB_PADDING;
                long perRows = ceilDiv(padded, tp);
                yield new Share(ShardRule.VOCAB_PARALLEL, rows == 0 ? 0 : served / rows * perRows);
            }
            case ROUTER -> new Share(ShardRule.ROUTER_REPLICATED, served);
            case NORM, SHARED_GATE, VISION, OTHER -> new Share(ShardRule.REPLICATED, served);
            case MLA_DOWN -> new Share(ShardRule.MLA_REPLICATED, served);
            case MLA_UP -> new Share(ShardRule.MLA_COLUMN, ceilDiv(served, tp));
            case Q, MLP_COL, SHARED_COL -> new Share(ShardRule.COLUMN_PARALLEL, ceilDiv(served, tp));
            case O, MLP_ROW, SHARED_ROW -> vector ? new Share(ShardRule.REPLICATED, served)
                    : new Share(ShardRule.ROW_PARALLEL, ceilDiv(served, tp));
            case KV -> kvShare(served);
            case QKV -> qkvShare(served);
            case EXPERT -> expertShare(served);
        };
    }

    private Share kvShare(long served) {
        int tp = layout.tp();
        Integer kv = config == null || config.isMla() ? null : config.numKvHeads();
        if (kv == null || kv <= 0) {
            return new Share(ShardRule.COLUMN_PARALLEL, ceilDiv(served, tp));
        }
        if (tp > kv) {
            return new Share(ShardRule.KV_HEADS_REPLICATED, served / kv);
        }
        return new Share(ShardRule.COLUMN_PARALLEL, ceilDiv(served, tp));
    }

    private Share qkvShare(long served) {
        int tp = layout.tp();
        if (config == null || config.numKvHeads() == null || config.numAttentionHeads() == null) {
            return new Share(ShardRule.COLUMN_PARALLEL, ceilDiv(served, tp));
        }
        int heads = config.numAttentionHeads();
        int kv = config.numKvHeads();
        long kvPer = tp >= kv ? 1 : kv / tp;
        long unit = served / (heads + 2L * kv);
        long per = unit * (ceilDiv(heads, tp) + 2 * kvPer);
        return new Share(tp > kv ? ShardRule.KV_HEADS_REPLICATED : ShardRule.COLUMN_PARALLEL, per);
    }

    private Share expertShare(long served) {
        int group = layout.moeGroup();
        if (layout.ep() && group > 1 && experts > 0) {
            long local = ceilDiv(experts, group);
            return new Share(ShardRule.EXPERT_PARALLEL, served * local / experts);
        }
        return new Share(ShardRule.EXPERT_TP, ceilDiv(served, group));
    }

    private String formula(ShardRule rule) {
        int tp = layout.tp();
        return switch (rule) {
            case COLUMN_PARALLEL, ROW_PARALLEL, MLA_COLUMN -> "bytes / tp " + tp;
            case KV_HEADS_REPLICATED -> config != null && config.numKvHeads() != null
                    ? "k/v: bytes / " + config.numKvHeads() + " KV heads (1 head per rank, tp " + tp + "); q: bytes / tp " + tp
                    : "1 KV head per rank";
            case VOCAB_PARALLEL -> vocabFormula();
            case MLA_REPLICATED, REPLICATED, ROUTER_REPLICATED -> "bytes (whole on every rank)";
            case EXPERT_TP -> "bytes / (tp x dp) " + layout.moeGroup();
            case EXPERT_PARALLEL -> "bytes x ceil(" + experts + " experts / ep " + layout.moeGroup() + ") = "
                    + ceilDiv(Math.max(experts, 1), layout.moeGroup()) + " / " + experts;
            case TIED -> "0 (tie_word_embeddings: lm_head is the embedding)";
            case NOT_LOADED -> "0 (MTP layers load only with MTP speculative decoding)";
        };
    }

    private String vocabFormula() {
        Integer v = config == null ? null : config.vocabSize();
        if (v == null) {
            return "rows padded to a multiple of 64, / tp " + layout.tp();
        }
        long padded = ceilDiv(v, VOCAB_PADDING) * VOCAB_PADDING;
        return v + " rows -> " + padded + " (pad to 64) / tp " + layout.tp() + " = " + ceilDiv(padded, layout.tp()) + " rows per rank";
    }

    private static boolean isFp8(String dtype) {
        return "F8_E4M3".equals(dtype) || "F8_E5M2".equals(dtype);
    }

    private static boolean isFloat(String dtype) {
        return "F16".equals(dtype) || "BF16".equals(dtype) || "F32".equals(dtype) || "F64".equals(dtype);
    }

    private boolean explicitDtype() {
        return opts.dtype() != null && !opts.dtype().equalsIgnoreCase("auto");
    }

    /** Bytes vLLM holds for this tensor (before sharding). */
    private long servedBytes(CheckpointTensor t, TensorRole role, boolean fp8AsBf16) {
        if (fp8AsBf16 && role.scale() && t.name().endsWith(".weight_scale_inv")) {
            return 0; // fp8_cast_bf16.py folds the block scales into the weights and drops them
        }
        if (fp8AsBf16 && !role.scale() && isFp8(t.dtype())) {
            return t.elements() * servedElementBytes();
        }
        if (!role.scale() && isFloat(t.dtype()) && (explicitDtype()
                || (halveFloat32 && ("F32".equals(t.dtype()) || "F64".equals(t.dtype()))))) {
            return t.elements() * servedElementBytes();
        }
        return t.bytes();
    }

    /** The safetensors spelling of the dtype {@link #servedBytes} counts the tensor in. */
    private String servedDtype(CheckpointTensor t, TensorRole role, boolean fp8AsBf16) {
        if (fp8AsBf16 && role.scale() && t.name().endsWith(".weight_scale_inv")) {
            return "dropped";
        }
        boolean cast = (fp8AsBf16 && !role.scale() && isFp8(t.dtype()))
                || (!role.scale() && isFloat(t.dtype()) && (explicitDtype()
                        || (halveFloat32 && ("F32".equals(t.dtype()) || "F64".equals(t.dtype())))));
        return cast ? servedFloatName() : t.dtype();
    }

    /** The served float dtype in safetensors spelling (BF16, F16, F32). */
    private String servedFloatName() {
        String d = explicitDtype() ? opts.dtype() : config == null ? null : config.torchDtype();
        String n = d == null ? "" : d.toLowerCase(Locale.ROOT).replace("torch.", "");
        return switch (n) {
            case "float16", "half", "fp16" -> "F16";
            case "float32", "float", "fp32" -> explicitDtype() ? "F32" : "F16/BF16";
            case "float64", "double" -> explicitDtype() ? "F64" : "F16/BF16";
            default -> "BF16";
        };
    }

    private int servedElementBytes() {
        String d = opts.dtype() == null ? "auto" : opts.dtype().toLowerCase(Locale.ROOT);
        if (!d.equals("auto")) {
            Integer b = ModelConfig.dtypeBytes(d);
            return b == null ? 2 : b;
        }
        Integer b = config == null ? null : config.dtypeBytes();
        return b == null || b == 4 ? 2 : b;
    }

    /**
     * What the weights are held in, said per kind of tensor when they differ: the float dtype of
     * unquantized tensors, then how FP8 / integer-quantized tensors are counted.
     */
    private String servedDtypeName() {
        String f = floatDtypeName();
        Set<String> quant = new java.util.TreeSet<>();
        for (CheckpointTensor t : ckpt.tensors()) {
            if (!isFloat(t.dtype()) && !t.dtype().equals("BOOL")) {
                quant.add(t.dtype());
            }
        }
        quant.removeIf(d -> !isFp8(d) && !d.startsWith("I") && !d.startsWith("U") && !d.startsWith("F4") && !d.startsWith("F6"));
        if (quant.isEmpty()) {
            return f;
        }
        boolean fp8 = quant.stream().anyMatch(WeightsPlanner::isFp8);
        String q = String.join("/", quant);
        if (fp8 && opts.fp8AsBf16()) {
            return f + "; " + q + " weights converted to 16 bits (--fp8-weights bf16)";
        }
        return f + " for unquantized tensors; " + q + " weights as stored"
                + (fp8 ? " (FP8 kept as FP8: not possible on Ascend, see notes)" : "");
    }

    private String floatDtypeName() {
        String d = opts.dtype() == null ? "auto" : opts.dtype();
        if (!d.equalsIgnoreCase("auto")) {
            return d;
        }
        String cfg = config == null ? null : config.torchDtype();
        if (cfg == null) {
            return "auto (checkpoint dtype unknown)";
        }
        return Integer.valueOf(4).equals(config.dtypeBytes()) ? "float16/bfloat16 (auto from float32)" : cfg;
    }

    private int kvElementBytes() {
        String k = opts.kvCacheDtype() == null ? "auto" : opts.kvCacheDtype().toLowerCase(Locale.ROOT);
        if (!k.equals("auto")) {
            Integer b = ModelConfig.dtypeBytes(k.startsWith("fp8") ? "fp8" : k);
            return b == null ? 2 : b;
        }
        return servedElementBytes();
    }

    private String kvDtypeName() {
        String k = opts.kvCacheDtype() == null ? "auto" : opts.kvCacheDtype();
        return k.equalsIgnoreCase("auto") ? "auto = " + floatDtypeName() : k;
    }

    private int expertCount() {
        if (config != null && config.numExperts() != null) {
            return config.numExperts();
        }
        Set<Integer> seen = new HashSet<>();
        for (CheckpointTensor t : ckpt.tensors()) {
            Matcher m = EXPERT_INDEX.matcher(t.name());
            if (m.find()) {
                seen.add(Integer.parseInt(m.group(1)));
            }
        }
        return seen.size();
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
