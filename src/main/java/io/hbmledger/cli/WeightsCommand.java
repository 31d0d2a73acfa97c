package io.hbmledger.cli;

import io.hbmledger.run.AtomicFile;
import io.hbmledger.run.FileProblem;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.load.ModelLoader;
import io.hbmledger.evidence.modelconfig.ModelConfig;
import io.hbmledger.evidence.safetensors.CheckpointManifest;
import io.hbmledger.evidence.safetensors.ManifestJson;
import io.hbmledger.report.WeightsJsonWriter;
import io.hbmledger.report.WeightsTextWriter;
import io.hbmledger.weights.Checkpoint;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import io.hbmledger.weights.WeightsPlan;
import io.hbmledger.weights.WeightsPlanner;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code hbm-ledger weights MODEL_DIR --tp N}: checkpoint bytes per component and per device. */
@Command(name = "weights", mixinStandardHelpOptions = true,
        header = "Checkpoint weights per component and per device under TP/DP/PP/EP.",
        // one string per paragraph: picocli wraps it (see HelpText and HelpTextTest)
        description = {"Checkpoint weights per component: total bytes (exact from safetensors headers, else estimated"
            + " from config.json) and the estimated share on one device under vLLM's TP/DP/PP/EP sharding, with the rule"
            + " used. Reads only safetensors headers, never tensor data.",
            "MODEL_DIR may also be a single .safetensors file, a config.json alone (estimate), or a weights manifest"
            + " (hbm-ledger/weights-manifest/1) saved by --save-manifest."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "2:unusable input (missing, unreadable, binary, not JSON, no weights or config, malformed header) or bad option"})
public final class WeightsCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "MODEL_DIR", description = "model directory (config.json, *.safetensors) or a saved manifest")
    Path model;

    @Option(names = "--tp", defaultValue = "1", description = "tensor-parallel size (default: ${DEFAULT-VALUE})")
    int tp;

    @Option(names = "--dp", defaultValue = "1", description = "data-parallel size (default: ${DEFAULT-VALUE})")
    int dp;

    @Option(names = "--pp", defaultValue = "1", description = "pipeline-parallel size (default: ${DEFAULT-VALUE})")
    int pp;

    @Option(names = "--ep", description = "expert parallelism on (vLLM --enable-expert-parallel): experts spread whole over tp x dp")
    boolean ep;

    @Option(names = "--dtype", defaultValue = "auto", description = "vLLM --dtype (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--kv-cache-dtype", defaultValue = "auto", description = "vLLM --kv-cache-dtype (default: ${DEFAULT-VALUE})")
    String kvCacheDtype;

    @Option(names = "--block-size", defaultValue = "128", description = "KV cache block size in tokens (default: ${DEFAULT-VALUE})")
    int blockSize;

    @Option(names = "--fp8-weights", paramLabel = "stored|bf16", defaultValue = "stored",
            description = "how FP8 checkpoint weights are counted: stored (1 B each, as vLLM keeps them on FP8 GPUs; close to a"
                + " W8A8 int8 conversion) or bf16 (converted to 16 bits, block scales dropped: how an FP8 checkpoint"
                + " converted for Ascend, which has no FP8, is served) (default: ${DEFAULT-VALUE})")
    String fp8Weights;

    @Option(names = "--mtp", description = "MTP speculative decoding on: count the MTP layers the drafter loads")
    boolean mtp;

    @Option(names = "--save-manifest", paramLabel = "FILE", description = "also write the header manifest (no tensor data) to FILE")
    Path saveManifest;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE})")
    OutputFormat format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        if (tp < 1 || dp < 1 || pp < 1 || blockSize < 1) {
            err.println("hbm-ledger: --tp, --dp, --pp and --block-size must be at least 1");
            return Main.EXIT_BAD_INPUT;
        }
        if (!"auto".equalsIgnoreCase(dtype) && ModelConfig.dtypeBytes(dtype) == null) {
            err.println("hbm-ledger: --dtype " + dtype + ": expected auto, bfloat16, float16 or float32 (vLLM --dtype)");
            return Main.EXIT_BAD_INPUT;
        }
        if (!"auto".equalsIgnoreCase(kvCacheDtype) && !kvCacheDtype.toLowerCase(java.util.Locale.ROOT).startsWith("fp8")
                && ModelConfig.dtypeBytes(kvCacheDtype) == null) {
            err.println("hbm-ledger: --kv-cache-dtype " + kvCacheDtype + ": expected auto, fp8, fp8_e4m3, fp8_e5m2, int8, bfloat16 or float16");
            return Main.EXIT_BAD_INPUT;
        }
        if (!fp8Weights.equals("stored") && !fp8Weights.equals("bf16")) {
            err.println("hbm-ledger: --fp8-weights " + fp8Weights + ": expected stored or bf16");
            return Main.EXIT_BAD_INPUT;
        }
        CheckpointManifest manifest;
        Checkpoint ckpt;
        try {
            ModelLoader.LoadedModel loaded = ModelLoader.load(model);
            manifest = loaded.manifest();
            ckpt = loaded.checkpoint();
        } catch (EvidenceException e) {
            err.println("hbm-ledger: " + e.getMessage());
            err.flush();
            return Main.EXIT_BAD_INPUT;
        }
        WeightsPlan plan = WeightsPlanner.plan(ckpt, new ParallelLayout(tp, dp, pp, ep),
                new PlanOptions(dtype, kvCacheDtype, mtp, blockSize, fp8Weights.equals("bf16")));
        StringWriter buf = new StringWriter();
        if (format == OutputFormat.json) {
            new WeightsJsonWriter().write(model.toString(), plan, buf);
        } else {
            new WeightsTextWriter().write(model.toString(), plan, new PrintWriter(buf));
        }
        if (saveManifest != null) {
            StringWriter m = new StringWriter();
            ManifestJson.write(manifest, m);
            try {
                AtomicFile.write(saveManifest, m.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                err.println("hbm-ledger: --save-manifest: " + FileProblem.cannotWrite(saveManifest, e)
                        + "; nothing was written (no manifest, no table). Name a file in an existing directory you may write to");
                err.flush();
                return Main.EXIT_BAD_INPUT;
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(buf);
        out.flush();
        return 0;
    }
}
