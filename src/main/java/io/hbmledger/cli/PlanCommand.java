package io.hbmledger.cli;

import io.hbmledger.evidence.EvidenceException;
import io.hbmledger.evidence.modelconfig.ModelConfig;
import io.hbmledger.load.BadInputException;
import io.hbmledger.plan.Calibration;
import io.hbmledger.plan.CalibrationReader;
import io.hbmledger.plan.DeviceCatalog;
import io.hbmledger.plan.DeviceSpec;
import io.hbmledger.plan.Plan;
import io.hbmledger.plan.PlanInput;
import io.hbmledger.plan.PlanJson;
import io.hbmledger.plan.PlanModel;
import io.hbmledger.plan.PlanSettings;
import io.hbmledger.plan.PlanText;
import io.hbmledger.plan.Planner;
import io.hbmledger.plan.Sweep;
import io.hbmledger.settings.RunReading;
import io.hbmledger.settings.Setting;
import io.hbmledger.settings.ServingSettings;
import io.hbmledger.verdict.RunFacts;
import io.hbmledger.weights.ParallelLayout;
import io.hbmledger.weights.PlanOptions;
import io.hbmledger.weights.WeightsPlanner;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hbm-ledger plan MODEL --device 910B2 ...}: what fits before you start. */
@Command(name = "plan", mixinStandardHelpOptions = true,
        header = "What fits: weights, non-KV memory, KV budget, tokens and blocks per device for given settings.",
        description = {"Works out vLLM's budget per device before a start: weights (exact from safetensors headers, else"
            + " estimated from config.json), the non-KV memory (from a calibration run, scaled by documented rules, else"
            + " engine defaults, labelled estimated), the KV budget, KV tokens, blocks, the concurrency at max_model_len,"
            + " and the smallest utilization / largest max_model_len that fit. See docs/readme-plan.md.",
            "MODEL is a checkpoint directory, a config.json, a weights manifest, or a run directory naming its checkpoint;"
            + " without MODEL the --calibrate run's checkpoint is used. Settings not given are the calibration run's."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:plan printed", "2:unusable input (model, run, device name, option); nothing printed on stdout"})
public final class PlanCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "MODEL", description = "checkpoint directory, config.json, manifest or run directory")
    Path model;

    @Option(names = "--device", paramLabel = "NAME", description = "device model: 910B1, 910B2, 910B3, 910B4, 910A3, 310P, H20, H100, H200, A100, L40S, RTX4090, RTX5090")
    String device;

    @Option(names = "--capacity", paramLabel = "GIB", description = "device memory in GiB, instead of --device (taken as the total the framework sees)")
    Double capacityGib;

    @Option(names = "--tp", description = "tensor-parallel size (default: the calibration run's, else 1)")
    Integer tp;

    @Option(names = "--pp", description = "pipeline-parallel size (default: the calibration run's, else 1)")
    Integer pp;

    @Option(names = "--dp", description = "data-parallel size (default: the calibration run's, else 1)")
    Integer dp;

    @Option(names = "--ep", description = "expert parallelism (--enable-expert-parallel)")
    boolean ep;

    @Option(names = "--gpu-memory-utilization", paramLabel = "U", description = "share of the total (default: the calibration run's, else vLLM's 0.9)")
    Double utilization;

    @Option(names = "--max-model-len", paramLabel = "N", description = "tokens per request (default: the calibration run's, else max_position_embeddings)")
    Integer maxModelLen;

    @Option(names = "--max-num-seqs", paramLabel = "N", description = "concurrent sequences (default: the calibration run's)")
    Integer maxNumSeqs;

    @Option(names = "--max-num-batched-tokens", paramLabel = "N", description = "tokens of vLLM's profile run (default: the calibration run's)")
    Integer maxNumBatchedTokens;

    @Option(names = "--kv-cache-dtype", description = "auto, fp8, fp8_e4m3, fp8_e5m2, int8, bfloat16, float16 (default: the calibration run's, else auto)")
    String kvCacheDtype;

    @Option(names = "--dtype", description = "vLLM --dtype (default: the calibration run's, else auto)")
    String dtype;

    @Option(names = "--enforce-eager", arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
            description = "no graph capture (default: the calibration run's, else not given: graph pool unknown)")
    Boolean enforceEager;

    @Option(names = "--block-size", paramLabel = "N", description = "KV block size in tokens (default: 128 on Ascend, 16 on GPUs)")
    Integer blockSize;

    @Option(names = "--co-tenant", paramLabel = "GIB", description = "memory other processes hold on the device at start, GiB")
    Double coTenantGib;

    @Option(names = "--co-tenant-utilization", paramLabel = "U", description = "another vLLM instance's utilization on the same device")
    Double coTenantUtilization;

    @Option(names = "--calibrate", paramLabel = "RUN_DIR", description = "a run whose measured non-KV memory the plan scales")
    Path calibrate;

    @Option(names = "--sweep", paramLabel = "SETTING=a,b,c",
            description = "vary one setting: gpu-memory-utilization, max-model-len, max-num-seqs, max-num-batched-tokens, kv-cache-dtype, tp")
    String sweep;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE})")
    OutputFormat format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        try {
            return Finish.print(spec, run(err));
        } catch (BadInputException | EvidenceException e) {
            return Finish.badInput(spec, e);
        }
    }

    private String run(PrintWriter err) throws IOException, BadInputException, EvidenceException {
        DeviceSpec spec = null;
        if (device != null) {
            spec = DeviceCatalog.byName(device).orElseThrow(() -> new BadInputException("--device " + device
                    + ": not a known device; expected one of " + String.join(", ", DeviceCatalog.names()) + ", or --capacity GIB"));
        }
        check(utilization == null || utilization > 0 && utilization <= 1, "--gpu-memory-utilization " + utilization + ": expected a share in (0, 1]");
        check(capacityGib == null || capacityGib > 0, "--capacity " + capacityGib + ": expected GiB above 0");
        // 0 was taken: "max_concurrency Infinity", "served_concurrency 0.00" (fresh-user finding)
        check(maxModelLen == null || maxModelLen >= 1, "--max-model-len " + maxModelLen + ": expected tokens, at least 1");
        check(maxNumSeqs == null || maxNumSeqs >= 1, "--max-num-seqs " + maxNumSeqs + ": expected sequences, at least 1");
        check(maxNumBatchedTokens == null || maxNumBatchedTokens >= 1, "--max-num-batched-tokens " + maxNumBatchedTokens
                + ": expected tokens, at least 1");
        check(kvCacheDtype == null || "auto".equalsIgnoreCase(kvCacheDtype) || kvCacheDtype.toLowerCase(Locale.ROOT).startsWith("fp8")
                || ModelConfig.dtypeBytes(kvCacheDtype) != null, "--kv-cache-dtype " + kvCacheDtype + ": expected auto, fp8, int8, bfloat16 or float16");
        RunReading cal = null;
        Calibration calibration = null;
        if (calibrate != null) {
            check(PlanModel.isRun(calibrate), "--calibrate " + calibrate + ": expected a run directory holding run.json");
            cal = RunReading.read(calibrate, w -> err.println("hbm-ledger: warning: " + w));
        }
        ServingSettings runSettings = cal == null ? ServingSettings.none() : cal.settings();
        boolean ascend = spec != null ? spec.ascend() : cal != null && cal.facts().accelerator() == RunFacts.Accelerator.NPU;
        int bs = blockSize != null ? blockSize : orElse(runSettings.integer(Setting.BLOCK_SIZE), ascend ? 128 : 16);
        if (cal != null) {
            calibration = CalibrationReader.of(calibrate.toString(), cal, bs);
        }
        PlanModel m;
        if (model == null) {
            check(cal != null, "no MODEL: name a checkpoint directory, a config.json or a run directory, or --calibrate a run that names its checkpoint");
            m = PlanModel.ofRun(calibrate, cal);
        } else if (PlanModel.isRun(model)) {
            m = PlanModel.ofRun(model, model.equals(calibrate) ? cal : RunReading.read(model, w -> err.println("hbm-ledger: warning: " + w)));
        } else {
            m = PlanModel.open(model);
        }
        int t = orElse(tp, orElse(runSettings.integer(Setting.TENSOR_PARALLEL_SIZE), 1));
        int p = orElse(pp, orElse(runSettings.integer(Setting.PIPELINE_PARALLEL_SIZE), 1));
        int d = orElse(dp, orElse(runSettings.integer(Setting.DATA_PARALLEL_SIZE), 1));
        check(t >= 1 && p >= 1 && d >= 1 && bs >= 1, "--tp, --pp, --dp and --block-size must be at least 1");
        String kvd = kvCacheDtype != null ? kvCacheDtype : runSettings.get(Setting.KV_CACHE_DTYPE).map(v -> v.value()).orElse("auto");
        String dt = dtype != null ? dtype : "auto";
        Double u = utilization != null ? utilization : runSettings.number(Setting.GPU_MEMORY_UTILIZATION);
        Boolean eager = enforceEager != null ? enforceEager : runSettings.bool(Setting.ENFORCE_EAGER);
        Long capacity = capacityGib == null ? null : Math.round(capacityGib * (1L << 30));
        PlanSettings settings = new PlanSettings(u == null ? 0.9 : u, maxModelLen != null ? maxModelLen : runSettings.integer(Setting.MAX_MODEL_LEN),
                maxNumSeqs != null ? maxNumSeqs : runSettings.integer(Setting.MAX_NUM_SEQS),
                maxNumBatchedTokens != null ? maxNumBatchedTokens : runSettings.integer(Setting.MAX_NUM_BATCHED_TOKENS),
                kvd, dt, eager, bs, 0);
        PlanInput base = input(m, t, p, d, spec, capacity, settings, calibration);
        Plan plan = Planner.plan(base);
        long coTenant = coTenantBytes(plan);
        if (coTenant > 0) {
            plan = Planner.plan(input(m, t, p, d, spec, capacity, withCoTenant(settings, coTenant), calibration));
            settings = plan.settings();
        }
        Sweep sw = sweep == null ? null : sweep(m, t, p, d, spec, capacity, settings, calibration);
        if (format == OutputFormat.json) {
            return PlanJson.write(plan, sw);
        }
        StringWriter buf = new StringWriter();
        PlanText.write(plan, sw, new PrintWriter(buf));
        return buf.toString();
    }

    private long coTenantBytes(Plan plan) throws BadInputException {
        if (coTenantGib != null) {
            check(coTenantGib >= 0, "--co-tenant " + coTenantGib + ": expected GiB, 0 or more");
            return Math.round(coTenantGib * (1L << 30));
        }
        if (coTenantUtilization != null) {
            check(coTenantUtilization > 0 && coTenantUtilization < 1, "--co-tenant-utilization " + coTenantUtilization + ": expected a share in (0, 1)");
            var total = plan.figure("total_seen").filter(f -> f.known());
            check(total.isPresent(), "--co-tenant-utilization needs the total the framework sees: give --device, --capacity or --calibrate");
            return (long) Math.floor(coTenantUtilization * total.get().bytes());
        }
        return 0;
    }

    private static PlanSettings withCoTenant(PlanSettings s, long bytes) {
        return new PlanSettings(s.utilization(), s.maxModelLen(), s.maxNumSeqs(), s.maxNumBatchedTokens(), s.kvCacheDtype(), s.dtype(),
                s.enforceEager(), s.blockSize(), bytes);
    }

    private Sweep sweep(PlanModel m, int t, int p, int d, DeviceSpec spec, Long capacity, PlanSettings s, Calibration cal)
            throws BadInputException {
        int eq = sweep.indexOf('=');
        // vLLM's Python name (gpu_memory_utilization) as well as its option's (fresh-user finding)
        String name = eq < 0 ? sweep : sweep.substring(0, eq).replaceFirst("^--", "").replace('_', '-');
        check(eq > 0 && Sweep.SETTINGS.contains(name), "--sweep " + sweep + ": expected SETTING=a,b,c with SETTING one of "
                + String.join(", ", Sweep.SETTINGS));
        List<Sweep.Row> rows = new ArrayList<>();
        for (String v : sweep.substring(eq + 1).split(",")) {
            String value = v.strip();
            try {
                PlanSettings x = switch (name) {
                    case "gpu-memory-utilization" -> s.withUtilization(Double.parseDouble(value));
                    case "max-model-len" -> s.withMaxModelLen(Integer.parseInt(value));
                    case "max-num-seqs" -> s.withMaxNumSeqs(Integer.parseInt(value));
                    case "max-num-batched-tokens" -> s.withMaxNumBatchedTokens(Integer.parseInt(value));
                    case "kv-cache-dtype" -> s.withKvCacheDtype(value);
                    default -> s;
                };
                int tpx = name.equals("tp") ? Integer.parseInt(value) : t;
                check(tpx >= 1 && x.utilization() > 0 && x.utilization() <= 1 && positive(x.maxModelLen())
                        && positive(x.maxNumSeqs()) && positive(x.maxNumBatchedTokens()), "--sweep " + name + "=" + value + ": out of range");
                rows.add(new Sweep.Row(value, Planner.plan(input(m, tpx, p, d, spec, capacity, x, cal))));
            } catch (NumberFormatException e) {
                throw new BadInputException("--sweep " + name + "=" + value + ": expected a number");
            }
        }
        return new Sweep(name, rows);
    }

    private static boolean positive(Integer n) {
        return n == null || n >= 1;
    }

    private PlanInput input(PlanModel m, int t, int p, int d, DeviceSpec spec, Long capacity, PlanSettings s, Calibration cal)
            throws BadInputException {
        var w = WeightsPlanner.plan(m.checkpoint(), new ParallelLayout(t, d, p, ep), new PlanOptions(s.dtype(), s.kvCacheDtype(), false, s.blockSize()));
        check(w.kv() != null, m.name() + ": config.json does not give the KV cache geometry (num_hidden_layers, num_key_value_heads,"
                + " head_dim or MLA's kv_lora_rank); a plan needs it. Point MODEL at the model's config.json");
        Integer hidden = m.checkpoint().config() == null ? null : m.checkpoint().config().hiddenSize();
        return new PlanInput(m.name(), w, hidden, m.maxPosition(), spec, capacity, s, cal);
    }

    private static void check(boolean ok, String message) throws BadInputException {
        if (!ok) {
            throw new BadInputException(message);
        }
    }

    private static int orElse(Integer v, int fallback) {
        return v == null ? fallback : v;
    }
}
