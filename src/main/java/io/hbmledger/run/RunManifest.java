package io.hbmledger.run;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run directory's manifest, {@code run.json}, as documented by {@code docs/run.schema.json}
 * ({@code hbm-ledger/run/1}). Written by {@code collect} after every phase and read by
 * {@code analyze}. Fields the model does not know are kept in {@link #extra()} and written back
 * unchanged, so that a newer collector's fields survive a rewrite by an older one.
 *
 * <p>Null fields are absent from the file. Lists and maps are never null (empty when absent).
 *
 * @param schema always {@link #SCHEMA}
 * @param moments wall-clock instants of the run (ISO-8601 strings), e.g. {@code ready}
 * @param evidence the evidence files, paths relative to the run directory
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schema", "run_id", "execution_id", "mode", "status", "phase",
    "incomplete_reasons", "source", "created", "updated", "deployment", "moments", "evidence"})
public record RunManifest(
        String schema,
        String runId,
        String executionId,
        String mode,
        String status,
        String phase,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> incompleteReasons,
        String source,
        String created,
        String updated,
        Deployment deployment,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> moments,
        List<EvidenceEntry> evidence,
        @JsonAnyGetter Map<String, Object> extra) {

    public static final String SCHEMA = "hbm-ledger/run/1";
    public static final String FILE_NAME = "run.json";

    /*
     * Reading goes through explicit factories rather than the canonical constructors: a record
     * component that is also the any-setter makes Jackson bind a JSON key of the same name ("extra")
     * to the whole map, so {"extra": 5} was refused and {"extra": {...}} lost its level on rewrite,
     * although the schema allows any extra property. Here "extra" is an ordinary unknown key.
     */
    @JsonCreator
    static RunManifest fromJson(@JsonProperty("schema") String schema, @JsonProperty("run_id") String runId,
                                @JsonProperty("execution_id") String executionId, @JsonProperty("mode") String mode,
                                @JsonProperty("status") String status, @JsonProperty("phase") String phase,
                                @JsonProperty("incomplete_reasons") List<String> incompleteReasons,
                                @JsonProperty("source") String source, @JsonProperty("created") String created,
                                @JsonProperty("updated") String updated, @JsonProperty("deployment") Deployment deployment,
                                @JsonProperty("moments") Map<String, String> moments,
                                @JsonProperty("evidence") List<EvidenceEntry> evidence,
                                @JsonAnySetter Map<String, Object> others) {
        return new RunManifest(schema, runId, executionId, mode, status, phase, incompleteReasons, source, created,
                updated, deployment, moments, evidence, others);
    }

    public RunManifest {
        incompleteReasons = incompleteReasons == null ? List.of() : List.copyOf(incompleteReasons);
        moments = moments == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(moments));
        evidence = evidence == null ? List.of() : List.copyOf(evidence);
        extra = extra == null ? new LinkedHashMap<>() : new LinkedHashMap<>(extra);
    }

    /** A new manifest with only the schema, a deployment and evidence entries. */
    public static RunManifest of(Deployment deployment, List<EvidenceEntry> evidence) {
        return new RunManifest(SCHEMA, null, null, null, null, null, null, null, null, null,
                deployment, null, evidence, null);
    }

    public RunManifest withEvidence(List<EvidenceEntry> e) {
        return new RunManifest(schema, runId, executionId, mode, status, phase, incompleteReasons,
                source, created, updated, deployment, moments, e, extra);
    }

    /** Appends one evidence entry; the earlier entries are kept as they are. */
    public RunManifest plusEvidence(EvidenceEntry e) {
        List<EvidenceEntry> all = new ArrayList<>(evidence);
        all.add(e);
        return withEvidence(all);
    }

    public RunManifest withStatus(String s, String p, List<String> reasons) {
        return new RunManifest(schema, runId, executionId, mode, s, p, reasons,
                source, created, updated, deployment, moments, evidence, extra);
    }

    public RunManifest withMoments(Map<String, String> m) {
        return new RunManifest(schema, runId, executionId, mode, status, phase, incompleteReasons,
                source, created, updated, deployment, m, evidence, extra);
    }

    public RunManifest withIds(String run, String execution, String runMode) {
        return new RunManifest(schema, run, execution, runMode, status, phase, incompleteReasons,
                source, created, updated, deployment, moments, evidence, extra);
    }

    public RunManifest withTimes(String createdAt, String updatedAt) {
        return new RunManifest(schema, runId, executionId, mode, status, phase, incompleteReasons,
                source, createdAt, updatedAt, deployment, moments, evidence, extra);
    }

    public RunManifest withSource(String s) {
        return new RunManifest(schema, runId, executionId, mode, status, phase, incompleteReasons,
                s, created, updated, deployment, moments, evidence, extra);
    }

    public RunManifest withDeployment(Deployment d) {
        return new RunManifest(schema, runId, executionId, mode, status, phase, incompleteReasons,
                source, created, updated, d, moments, evidence, extra);
    }

    /**
     * What was served and where. {@code devices[i]} is the logical device id rank i ran on
     * (ASCEND_RT_VISIBLE_DEVICES order).
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"model", "model_dir", "accelerator", "tp", "dp", "pp", "ep", "devices",
        "kv_cache_dtype", "gpu_memory_utilization", "server_pids"})
    public record Deployment(
            String model,
            String modelDir,
            String accelerator,
            Integer tp,
            Integer dp,
            Integer pp,
            Boolean ep,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Integer> devices,
            String kvCacheDtype,
            Double gpuMemoryUtilization,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Long> serverPids,
            @JsonAnyGetter Map<String, Object> extra) {

        @JsonCreator
        static Deployment fromJson(@JsonProperty("model") String model, @JsonProperty("model_dir") String modelDir,
                                   @JsonProperty("accelerator") String accelerator, @JsonProperty("tp") Integer tp,
                                   @JsonProperty("dp") Integer dp, @JsonProperty("pp") Integer pp,
                                   @JsonProperty("ep") Boolean ep, @JsonProperty("devices") List<Integer> devices,
                                   @JsonProperty("kv_cache_dtype") String kvCacheDtype,
                                   @JsonProperty("gpu_memory_utilization") Double gpuMemoryUtilization,
                                   @JsonProperty("server_pids") List<Long> serverPids,
                                   @JsonAnySetter Map<String, Object> others) {
            return new Deployment(model, modelDir, accelerator, tp, dp, pp, ep, devices, kvCacheDtype,
                    gpuMemoryUtilization, serverPids, others);
        }

        public Deployment {
            devices = devices == null ? List.of() : List.copyOf(devices);
            serverPids = serverPids == null ? List.of() : List.copyOf(serverPids);
            extra = extra == null ? new LinkedHashMap<>() : new LinkedHashMap<>(extra);
        }

        public static Deployment of(String model, Integer tp, Integer dp, List<Integer> devices) {
            return new Deployment(model, null, null, tp, dp, null, null, devices, null, null, null, null);
        }

        /** Tensor-parallel size, 1 when not given. */
        public int tpOrOne() {
            return tp == null ? 1 : tp;
        }

        /** Data-parallel size, 1 when not given. */
        public int dpOrOne() {
            return dp == null ? 1 : dp;
        }

        public Deployment withServerPids(List<Long> pids) {
            return new Deployment(model, modelDir, accelerator, tp, dp, pp, ep, devices,
                    kvCacheDtype, gpuMemoryUtilization, pids, extra);
        }

        public Deployment withAccelerator(String a) {
            return new Deployment(model, modelDir, a, tp, dp, pp, ep, devices,
                    kvCacheDtype, gpuMemoryUtilization, serverPids, extra);
        }

        public Deployment withGpuMemoryUtilization(Double u) {
            return new Deployment(model, modelDir, accelerator, tp, dp, pp, ep, devices,
                    kvCacheDtype, u, serverPids, extra);
        }
    }

    /**
     * One evidence file of the run.
     *
     * @param file path relative to the run directory (forward slashes)
     * @param moment one of {@link Moment}'s names, or null when not known
     * @param rank the worker rank, when the file holds one rank's log only
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"file", "moment", "taken_at", "rank", "note"})
    public record EvidenceEntry(
            String file,
            String moment,
            String takenAt,
            Integer rank,
            String note,
            @JsonAnyGetter Map<String, Object> extra) {

        @JsonCreator
        static EvidenceEntry fromJson(@JsonProperty("file") String file, @JsonProperty("moment") String moment,
                                      @JsonProperty("taken_at") String takenAt, @JsonProperty("rank") Integer rank,
                                      @JsonProperty("note") String note, @JsonAnySetter Map<String, Object> others) {
            return new EvidenceEntry(file, moment, takenAt, rank, note, others);
        }

        public EvidenceEntry {
            extra = extra == null ? new LinkedHashMap<>() : new LinkedHashMap<>(extra);
        }

        public static EvidenceEntry of(String file, String moment) {
            return new EvidenceEntry(file, moment, null, null, null, null);
        }

        public EvidenceEntry withTakenAt(String t) {
            return new EvidenceEntry(file, moment, t, rank, note, extra);
        }

        public EvidenceEntry withRank(Integer r) {
            return new EvidenceEntry(file, moment, takenAt, r, note, extra);
        }

        public EvidenceEntry withNote(String n) {
            return new EvidenceEntry(file, moment, takenAt, rank, n, extra);
        }
    }
}
