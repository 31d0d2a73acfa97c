package io.hbmledger.evidence;

/**
 * What kind of file an evidence entry is. The contract names are those of
 * {@code shared/contracts/evidence-v1.md} ({@code format} of each file); a few kinds that
 * {@code analyze} records without a parser of their own (an msprof export directory, a weights
 * manifest) carry the name the run has always shown.
 */
public enum EvidenceFormat {
    NPU_SMI_INFO("npu-smi-info", Family.NPU_SMI),
    NPU_SMI_USAGES("npu-smi-usages", Family.NPU_SMI),
    /** {@code npu-smi info -t proc-mem}: one line per process. */
    NPU_SMI_PROC_MEM("npu-smi-proc-mem", Family.NPU_SMI),
    NVIDIA_SMI("nvidia-smi", Family.NVIDIA_SMI),
    NVIDIA_SMI_CSV("nvidia-smi-csv", Family.NVIDIA_SMI),
    VLLM_LOG("vllm-log", Family.VLLM_LOG),
    MSPROF_CSV("msprof-csv", Family.MSPROF),
    MSPROF_DB("msprof-db", Family.MSPROF),
    /** A directory holding an msprof / torch_npu export, read as a whole by {@code analyze}. */
    MSPROF_EXPORT("msprof-export", Family.MSPROF),
    SAFETENSORS("safetensors", Family.CHECKPOINT),
    SAFETENSORS_INDEX("safetensors-index", Family.CHECKPOINT),
    LFS_POINTER("lfs-pointer", Family.CHECKPOINT),
    MODEL_CONFIG("model-config", Family.CHECKPOINT),
    /** The run's {@code model/weights-manifest.json}, written by {@code collect}. */
    WEIGHTS_MANIFEST("weights-manifest", Family.CHECKPOINT),
    /**
     * Text mixing prose and machine output (an issue's markdown, a terminal paste): read range by
     * range by the other readers, each range with its own format ({@link EvidenceFile#parts()}).
     */
    /**
     * A file SQLite keeps beside a database ({@code -wal}, {@code -shm}, {@code -journal}):
     * recognised so that it is not called unknown, and read only with its database.
     */
    SQLITE_SIDECAR("sqlite-sidecar", Family.NONE),
    PASTED_TEXT("pasted-text", Family.NONE),
    /** Settings a person states in the prose of a paste ("the four instances used 0.2, 0.45 ..."). */
    USER_STATEMENT("user-statement", Family.NONE),
    /** A container start command in a paste ({@code docker run ... --device /dev/davinci0}): the cards it gives. */
    CONTAINER_COMMAND("container-command", Family.NONE),
    /**
     * Environment variables a paste shows: the environment section of vLLM's / vllm-ascend's
     * {@code collect_env} output, the {@code export} lines of a start script.
     */
    ENVIRONMENT("environment", Family.NONE),
    UNKNOWN("unknown", Family.NONE);

    /** The tool that wrote a file: what rules ask ("is there an npu-smi sample?"). */
    public enum Family { NPU_SMI, NVIDIA_SMI, VLLM_LOG, MSPROF, CHECKPOINT, NONE }

    private final String contractName;
    private final Family family;

    EvidenceFormat(String contractName, Family family) {
        this.contractName = contractName;
        this.family = family;
    }

    /** The name printed as {@code format} by {@code evidence} (evidence-v1). */
    public String contractName() {
        return contractName;
    }

    public Family family() {
        return family;
    }

    /** npu-smi or nvidia-smi output: a sample of the devices at one moment. */
    public boolean isDeviceSample() {
        return family == Family.NPU_SMI || family == Family.NVIDIA_SMI;
    }

    /**
     * True when the format's {@code line} counts data rows of a table (CSV, header excluded;
     * SQLite rowid), not lines of the file (evidence-v1): shown as {@code row N}.
     */
    public boolean countsDataRows() {
        return this == NVIDIA_SMI_CSV || this == MSPROF_CSV || this == MSPROF_DB;
    }

    @Override
    public String toString() {
        return contractName;
    }
}
