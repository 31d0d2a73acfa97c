package io.hbmledger.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.ModelDirectory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeightsPlannerTest {

    @TempDir
    Path tmp;

    private static WeightsPlan plan(Path dir, ParallelLayout layout) throws Exception {
        return WeightsPlanner.plan(Checkpoint.from(ModelDirectory.scan(dir)), layout, PlanOptions.defaults());
    }

    private static ComponentShare row(WeightsPlan p, ModelPart c, ShardRule r) {
        return p.components().stream().filter(s -> s.component() == c && s.rule() == r).findFirst().orElseThrow();
    }

    @Test
    void llama70bTotalFromConfigEqualsIndexTotalSize() throws Exception {
        Checkpoint c = Checkpoint.from(ModelDirectory.scan(CorpusCheckpoints.llama70b(tmp)));
        // By hand from config.json: 2 x 128262 x 8192 (embed_tokens, lm_head)
        // + 80 x (2 x 8192^2 (q, o) + 2 x 8192 x 1024 (k, v: 8 KV heads x 128) + 3 x 8192 x 28672 (gate, up, down)
        //         + 2 x 8192 (two RMSNorms)) + 8192 (final norm) = 70,553,804,800 parameters
        // x 4 bytes (torch_dtype float32) = 282,215,219,200 = the index's metadata.total_size.
        assertThat(c.totalBytes()).isEqualTo(282_215_219_200L);
        assertThat(c.tensors()).hasSize(723);
        assertThat(c.source()).isEqualTo(Checkpoint.Source.CONFIG);
        assertThat(c.notes()).contains("tensor names match the index's weight_map (723 tensors)",
                "total 282215219200 bytes equals the index's total_size");
    }

    @Test
    void mixtral8x22bTotalFromConfigEqualsIndexTotalSize() throws Exception {
        Checkpoint c = Checkpoint.from(ModelDirectory.scan(CorpusCheckpoints.mixtral(tmp)));
        // 2 x 32000 x 6144 + 56 x (2 x 6144^2 + 2 x 6144 x 1024 + 8 experts x 3 x 6144 x 16384
        //   + 8 x 6144 (router) + 2 x 6144) + 6144 = 140,620,634,112 parameters x 2 (bfloat16)
        assertThat(c.totalBytes()).isEqualTo(281_241_268_224L);
        assertThat(c.tensors()).hasSize(1739);
        assertThat(c.notes()).contains("tensor names match the index's weight_map (1739 tensors)");
    }

    @Test
    void qwen25_14bPerDeviceShareAtTp4() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.qwen14b(tmp), ParallelLayout.tp(4));
        // By hand, Qwen2.5-14B (h 5120, 40 heads, 8 KV heads, head_dim 128, intermediate 13824,
        // vocab 152064, 48 layers, float16 = 2 B), TP 4:
        //  embed_tokens: 152064 is a multiple of 64, / 4 = 38016 rows x 5120 x 2  =   389,283,840
        //  lm_head: the same                                                      =   389,283,840
        //  per layer: q+k+v weight (10 + 2 + 2 heads) x 128 x 5120 x 2 = 18,350,080, their bias 1792 x 2 = 3,584,
        //    o_proj 5120 x 1280 x 2 = 13,107,200, gate+up 2 x 3456 x 5120 x 2 = 70,778,880,
        //    down 5120 x 3456 x 2 = 35,389,440, two norms 2 x 5120 x 2 = 20,480 (replicated): 137,649,664
        //  48 layers = 6,607,183,872; final norm 10,240 (replicated)
        //  total = 7,385,761,792 (the checkpoint's 29,540,067,328 / 4 = 7,385,016,832 plus 744,960 of norms kept whole)
        assertThat(p.perDeviceBytes()).isEqualTo(7_385_761_792L);
        assertThat(p.checkpointBytes()).isEqualTo(29_540_067_328L);
        // every tensor is float16: 29,540,067,328 B / 2 = 14,770,033,664 parameters
        assertThat(p.components().stream().mapToLong(ComponentShare::parameters).sum()).isEqualTo(14_770_033_664L);
        assertThat(row(p, ModelPart.EMBEDDING, ShardRule.VOCAB_PARALLEL).perDeviceBytes()).isEqualTo(389_283_840L);
        assertThat(row(p, ModelPart.NORMS, ShardRule.REPLICATED).perDeviceBytes()).isEqualTo(993_280L);
        // KV cache per device: 2 x 48 x (8 / 4 = 2 heads) x 128 x 2 = 49,152 B per token
        assertThat(p.kv().bytesPerTokenPerDevice()).isEqualTo(49_152L);
        assertThat(p.kv().bytesPerToken()).isEqualTo(196_608L);
    }

    @Test
    void llama70bFloat32IsServedIn16BitsWithVocabPadding() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.llama70b(tmp), ParallelLayout.tp(8));
        // --dtype auto serves float32 at 2 B. Vocab 128262 pads to 128320 (2005 x 64), / 8 = 16040 rows:
        //  embed and lm_head 16040 x 8192 x 2 = 262,799,360 each
        //  per layer: q, o 8192 x 1024 x 2 = 16,777,216 each; k, v (8 KV heads / 8 = 1) 1024 x 1024 x 2 = 2,097,152 each;
        //    gate, up, down 3584 x 8192 x 2 = 58,720,256 each; norms 2 x 8192 x 2 = 32,768: 213,942,272 x 80 = 17,115,381,760
        //  final norm 16,384: total 2 x 262,799,360 + 17,115,381,760 + 16,384 = 17,640,996,864
        assertThat(p.perDeviceBytes()).isEqualTo(17_640_996_864L);
        assertThat(p.notes()).anyMatch(n -> n.contains("float32") && n.contains("16 bits"));
        assertThat(row(p, ModelPart.LM_HEAD, ShardRule.VOCAB_PARALLEL).formula())
                .isEqualTo("128262 rows -> 128320 (pad to 64) / tp 8 = 16040 rows per rank");
    }

    @Test
    void kvHeadsReplicatedWhenTpExceedsThem() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.mixtral(tmp), ParallelLayout.tp(16));
        ComponentShare kv = row(p, ModelPart.ATTENTION, ShardRule.KV_HEADS_REPLICATED);
        // 56 layers x (k, v) = 112 tensors of 1024 x 6144 x 2 = 12,582,912 B; each rank keeps 1 of 8 heads
        assertThat(kv.tensors()).isEqualTo(112);
        assertThat(kv.totalBytes()).isEqualTo(112L * 12_582_912);
        assertThat(kv.perDeviceBytes()).isEqualTo(112L * 12_582_912 / 8);
        // KV cache per device at TP 16: one head per rank, 2 x 56 x 1 x 128 x 2 = 28,672 B per token
        assertThat(p.kv().bytesPerTokenPerDevice()).isEqualTo(28_672L);
    }

    @Test
    void mixtralExpertsTpShardedOverTpTimesDp() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.mixtral(tmp), new ParallelLayout(4, 2, 1, false));
        ComponentShare e = row(p, ModelPart.EXPERTS, ShardRule.EXPERT_TP);
        // 56 x 8 x 3 x 6144 x 16384 x 2 B = 270,582,939,648 over tp x dp = 8 devices
        assertThat(e.totalBytes()).isEqualTo(270_582_939_648L);
        assertThat(e.perDeviceBytes()).isEqualTo(270_582_939_648L / 8);
    }

    @Test
    void deepSeekR1ExpertParallelAndMla() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.deepseekR1(tmp), new ParallelLayout(16, 1, 1, true));
        ComponentShare e = row(p, ModelPart.EXPERTS, ShardRule.EXPERT_PARALLEL);
        // 58 MoE layers (61 - first_k_dense_replace 3) x 256 experts x 3 x 2048 x 7168 x 1 B (fp8 e4m3) = 653,908,770,816;
        // EP 16: 16 of 256 experts per rank = 40,869,298,176
        assertThat(e.totalBytes()).isEqualTo(653_908_770_816L);
        assertThat(e.perDeviceBytes()).isEqualTo(40_869_298_176L);
        // q_a_proj [1536, 7168] + kv_a_proj_with_mqa [576, 7168], fp8, replicated on all 16 ranks, 61 layers
        assertThat(row(p, ModelPart.ATTENTION, ShardRule.MLA_REPLICATED).perDeviceBytes()).isEqualTo(61L * (1536 + 576) * 7168);
        // MLA KV: the latent is not split by TP: 61 x (512 + 64) x 2 = 70,272 B per token on every rank
        assertThat(p.kv().bytesPerTokenPerDevice()).isEqualTo(70_272L);
        assertThat(row(p, ModelPart.MTP, ShardRule.NOT_LOADED).perDeviceBytes()).isZero();
        // W_UK_T / W_UV from kv_b_proj [128 x (128 + 128), 512] per layer, / 16 ranks, in bfloat16:
        // 61 x 32768 x 512 / 16 x 2 = 127,926,272 B beyond the figure
        assertThat(p.mlaDerivedBytes()).isEqualTo(127_926_272L);
    }

    @Test
    void pipelineStagesFollowVllmPartition() {
        // get_pp_indices: 48 // 5 = 9 each, remainder 3 to partitions[-2], [-3], [-4]
        assertThat(WeightsPlanner.stageLayers(48, 5)).containsExactly(9, 10, 10, 10, 9);
        assertThat(WeightsPlanner.stageLayers(61, 4)).containsExactly(15, 15, 16, 15);
    }

    @Test
    void pipelineParallelPutsEmbeddingFirstAndHeadLast() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.qwen14b(tmp), new ParallelLayout(1, 1, 2, false));
        // 24 layers per stage; at TP 1 a layer is q+k+v (40 + 8 + 8) x 128 x 5120 x 2 = 73,400,320 + bias 14,336
        // + o 52,428,800 + gate, up 283,115,520 + down 141,557,760 + norms 20,480 = 550,537,216 B
        long layer = 550_537_216L;
        long embed = 152064L * 5120 * 2;
        assertThat(p.stageBytes()).containsExactly(embed + 24 * layer, 24 * layer + 10_240 + embed);
        assertThat(p.heaviestStage()).isEqualTo(1);
    }

    @Test
    void tiedEmbeddingsAddNoLmHead() throws Exception {
        String cfg = "{\"model_type\":\"qwen2\",\"num_hidden_layers\":1,\"hidden_size\":64,\"num_attention_heads\":4,"
                + "\"num_key_value_heads\":2,\"intermediate_size\":128,\"vocab_size\":100,\"tie_word_embeddings\":true,"
                + "\"torch_dtype\":\"bfloat16\"}";
        Checkpoint c = Checkpoint.from(new CheckpointManifest("tiny", List.of(), List.of(), null, cfg));
        WeightsPlan p = WeightsPlanner.plan(c, ParallelLayout.tp(2), PlanOptions.defaults());
        assertThat(c.tensors()).noneMatch(t -> t.name().equals("lm_head.weight"));
        ComponentShare head = row(p, ModelPart.LM_HEAD, ShardRule.TIED);
        assertThat(head.perDeviceBytes()).isZero();
        // vocab 100 pads to 128, / 2 = 64 rows x 64 x 2 B
        assertThat(row(p, ModelPart.EMBEDDING, ShardRule.VOCAB_PARALLEL).perDeviceBytes()).isEqualTo(64L * 64 * 2);
        assertThat(c.notes()).anyMatch(n -> n.contains("no weights files"));
    }

    @Test
    void roleNamesFollowTheFamilies() {
        assertThat(TensorRole.of("model.layers.3.mlp.experts.17.down_proj.weight_scale_inv", null))
                .satisfies(r -> {
                    assertThat(r.kind()).isEqualTo(TensorRole.Kind.EXPERT);
                    assertThat(r.component()).isEqualTo(ModelPart.QUANT_SCALES);
                    assertThat(r.layer()).isEqualTo(3);
                });
        assertThat(TensorRole.of("model.layers.0.mlp.shared_experts.down_proj.weight", null).kind()).isEqualTo(TensorRole.Kind.SHARED_ROW);
        assertThat(TensorRole.of("model.layers.0.mlp.gate.e_score_correction_bias", null).kind()).isEqualTo(TensorRole.Kind.ROUTER);
        assertThat(TensorRole.of("model.layers.0.block_sparse_moe.gate.weight", null).kind()).isEqualTo(TensorRole.Kind.ROUTER);
        assertThat(TensorRole.of("transformer.encoder.layers.0.self_attention.query_key_value.weight", null).kind())
                .isEqualTo(TensorRole.Kind.QKV);
        assertThat(TensorRole.of("transformer.encoder.layers.0.self_attention.dense.weight", null).kind()).isEqualTo(TensorRole.Kind.O);
        assertThat(TensorRole.of("transformer.output_layer.weight", null).kind()).isEqualTo(TensorRole.Kind.LM_HEAD);
        assertThat(TensorRole.of("visual.blocks.0.attn.qkv.weight", null).component()).isEqualTo(ModelPart.VISION);
        assertThat(TensorRole.of("model.norm.weight", null).kind()).isEqualTo(TensorRole.Kind.NORM);
    }

    @Test
    void tiedEmbeddingsUnderPpGiveTheLastStageACopy() throws Exception {
        String cfg = "{\"model_type\":\"qwen2\",\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4,"
                + "\"num_key_value_heads\":2,\"intermediate_size\":128,\"vocab_size\":100,\"tie_word_embeddings\":true,"
                + "\"torch_dtype\":\"bfloat16\"}";
        Checkpoint c = Checkpoint.from(new CheckpointManifest("tiny", List.of(), List.of(), null, cfg));
        WeightsPlan p = WeightsPlanner.plan(c, new ParallelLayout(1, 1, 2, false), PlanOptions.defaults());
        // one layer per stage; the embedding (100 rows pad to 128 x 64 x 2 = 16384 B) on stage 0 and again on stage 1
        long embed = 128L * 64 * 2;
        assertThat(p.stageBytes().get(1) - p.stageBytes().get(0)).isEqualTo(128L); // stage 1 adds only the final norm
        assertThat(p.stageBytes().get(0)).isGreaterThan(embed);
        assertThat(p.notes()).contains("tied embeddings under PP: the last stage holds its own copy of the embedding for lm_head");
    }

    @Test
    void layoutsVllmRefusesAreNamed() throws Exception {
        // Qwen2.5-14B has 40 heads and 8 KV heads: TP 16 splits neither evenly (40 % 16, 8 < 16 but 16 % 8 = 0 is fine)
        WeightsPlan p = plan(CorpusCheckpoints.qwen14b(tmp), ParallelLayout.tp(16));
        assertThat(p.notes()).anyMatch(n -> n.startsWith("40 attention heads do not divide by TP 16"));
        assertThat(p.notes()).noneMatch(n -> n.contains("do not divide either way"));
    }

    // ---- dtype per component: as stored and as served; FP8 on Ascend ----

    private static final String R1_FP8 = "F8_E4M3";

    @Test
    void deepSeekR1LabelsFp8PerComponentAndSaysFp8IsKept() throws Exception {
        WeightsPlan p = plan(CorpusCheckpoints.deepseekR1(tmp), ParallelLayout.tp(16));
        // quantization_config fp8 e4m3 with weight_block_size: decoder linears are F8_E4M3, embeddings BF16
        assertThat(row(p, ModelPart.EXPERTS, ShardRule.EXPERT_TP).storedDtype()).isEqualTo(R1_FP8);
        assertThat(row(p, ModelPart.EXPERTS, ShardRule.EXPERT_TP).servedDtype()).isEqualTo(R1_FP8);
        assertThat(row(p, ModelPart.EMBEDDING, ShardRule.VOCAB_PARALLEL).storedDtype()).isEqualTo("BF16");
        assertThat(row(p, ModelPart.QUANT_SCALES, ShardRule.EXPERT_TP).storedDtype()).isEqualTo("F32");
        // the header no longer says "bfloat16" alone while experts count at 1 B per parameter
        assertThat(p.servedDtype()).isNotEqualTo("bfloat16").contains("bfloat16", R1_FP8, "as stored", "Ascend");
        // 40.18 GiB: the figure the fresh user saw, now labelled
        assertThat(p.perDeviceBytes()).isEqualTo(43_139_382_208L);
        assertThat(p.notes()).anySatisfy(n -> assertThat(n).contains("Ascend NPUs have no FP8", "W8A8", "85811306496"));
    }

    @Test
    void deepSeekR1Fp8ConvertedToBf16DoublesTheFp8SharesAndDropsTheScales() throws Exception {
        Path dir = CorpusCheckpoints.deepseekR1(tmp);
        WeightsPlan kept = plan(dir, ParallelLayout.tp(16));
        WeightsPlan bf16 = WeightsPlanner.plan(Checkpoint.from(ModelDirectory.scan(dir)), ParallelLayout.tp(16),
                new PlanOptions("auto", "auto", false, 128, true));
        long fp8Share = kept.components().stream().filter(c -> R1_FP8.equals(c.storedDtype()))
                .mapToLong(ComponentShare::perDeviceBytes).sum();
        long scales = kept.components().stream().filter(c -> c.component() == ModelPart.QUANT_SCALES)
                .mapToLong(ComponentShare::perDeviceBytes).sum();
        // from the TP 16 table: the eight F8_E4M3 rows hold 42,682,351,616 B per device, the block scales 10,427,328 B;
        // as BF16 each FP8 byte becomes two and fp8_cast_bf16.py drops the scales:
        // 43,139,382,208 + 42,682,351,616 - 10,427,328 = 85,811,306,496
        assertThat(fp8Share).isEqualTo(42_682_351_616L);
        assertThat(scales).isEqualTo(10_427_328L);
        assertThat(bf16.perDeviceBytes()).isEqualTo(43_139_382_208L + fp8Share - scales).isEqualTo(85_811_306_496L);
        assertThat(row(bf16, ModelPart.EXPERTS, ShardRule.EXPERT_TP).perDeviceBytes()).isEqualTo(2 * 40_869_298_176L);
        assertThat(row(bf16, ModelPart.EXPERTS, ShardRule.EXPERT_TP).servedDtype()).isEqualTo("BF16");
        assertThat(bf16.servedDtype()).contains("converted to 16 bits");
        assertThat(bf16.notes()).anySatisfy(n -> assertThat(n).contains("43139382208"));
    }

    @Test
    void explicitDtypeResizesUnquantizedTensors() throws Exception {
        Path dir = CorpusCheckpoints.qwen14b(tmp);
        WeightsPlan f32 = WeightsPlanner.plan(Checkpoint.from(ModelDirectory.scan(dir)), ParallelLayout.tp(4),
                new PlanOptions("float32", "auto", false, 128));
        // every Qwen2.5-14B tensor is float16: at 4 B per element the TP 4 share doubles, 2 x 7,385,761,792
        assertThat(f32.perDeviceBytes()).isEqualTo(14_771_523_584L);
        assertThat(row(f32, ModelPart.EMBEDDING, ShardRule.VOCAB_PARALLEL).storedDtype()).isEqualTo("F16");
        assertThat(row(f32, ModelPart.EMBEDDING, ShardRule.VOCAB_PARALLEL).servedDtype()).isEqualTo("F32");
        // an unquantized checkpoint keeps the plain label
        assertThat(plan(dir, ParallelLayout.tp(4)).servedDtype()).isEqualTo("float16");
    }

    @Test
    void optionsThatChangeNothingSaySo() throws Exception {
        // Qwen2.5-14B: dense (no experts), no MTP layers, 48 decoder layers
        WeightsPlan p = WeightsPlanner.plan(Checkpoint.from(ModelDirectory.scan(CorpusCheckpoints.qwen14b(tmp))),
                new ParallelLayout(4, 1, 64, true), new PlanOptions("auto", "auto", true, 128));
        assertThat(p.notes()).anySatisfy(n -> assertThat(n).startsWith("--ep has no effect"))
                .anySatisfy(n -> assertThat(n).startsWith("--mtp adds nothing"))
                .anySatisfy(n -> assertThat(n).startsWith("PP 64 exceeds the 48 decoder layers"));
    }
}
