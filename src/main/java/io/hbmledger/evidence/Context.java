package io.hbmledger.evidence;

/**
 * Where an {@link Observation} belongs beyond its file and line: the device, process or series
 * the source names next to the number. Every field is null when the source does not give it.
 *
 * @param device device key of evidence-v1 ({@code npu:0/chip:0}, {@code gpu:1}, {@code npu:3})
 * @param deviceId the chip's Phy-ID or logical Device id when an npu-smi table shows it
 * @param process the worker label of a vLLM log line ({@code Worker_TP0 pid=77})
 * @param pid process id (a vLLM worker, an npu-smi / nvidia-smi process row)
 * @param processName process name of an npu-smi / nvidia-smi process row
 * @param component msprof component (APP / PTA / GE, module name, graph id)
 * @param tokensPerRequest the N of vLLM's "Maximum concurrency for N tokens per request"
 * @param samples rows read for a summarised msprof series or operator table
 * @param timestampUs when an msprof series reached its maximum, microseconds
 * @param dpRank the data-parallel rank of the engine core under which a vLLM worker printed the
 *     line, when the log says so beyond the worker's own label (a worker line nested in its engine
 *     core's prefix: {@code (EngineCore_DP1 pid=9) (Worker_TP0 pid=12) ...})
 * @param inferred true when the source does not print what the number is and the reader took its
 *     meaning and unit from the tool's fixed layout (npu-smi rows pasted without their header);
 *     evidence-v1 {@code "confidence": "inferred"}. False for a number read under its own label.
 */
public record Context(String device, Integer deviceId, String process, Long pid, String processName,
                      String component, Integer tokensPerRequest, Long samples, Long timestampUs,
                      Integer dpRank, boolean inferred) {

    /** No context: a file-wide figure (checkpoint sizes, config fields). */
    public static final Context NONE = new Builder().build();

    /** A figure of one device. */
    public static Context device(String device) {
        return builder().device(device).build();
    }

    /** A figure printed by one vLLM worker. */
    public static Context worker(String process) {
        return builder().process(process).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().device(device).deviceId(deviceId).process(process).pid(pid)
                .processName(processName).component(component).tokensPerRequest(tokensPerRequest)
                .samples(samples).timestampUs(timestampUs).dpRank(dpRank).inferred(inferred);
    }

    /** Collects a context field by field; each parser sets what its source gives. */
    public static final class Builder {
        private String device;
        private Integer deviceId;
        private String process;
        private Long pid;
        private String processName;
        private String component;
        private Integer tokensPerRequest;
        private Long samples;
        private Long timestampUs;
        private Integer dpRank;
        private boolean inferred;

        private Builder() {
        }

        public Builder device(String v) {
            device = v;
            return this;
        }

        public Builder deviceId(Integer v) {
            deviceId = v;
            return this;
        }

        public Builder process(String v) {
            process = v;
            return this;
        }

        public Builder pid(Long v) {
            pid = v;
            return this;
        }

        public Builder processName(String v) {
            processName = v;
            return this;
        }

        public Builder component(String v) {
            component = v;
            return this;
        }

        public Builder tokensPerRequest(Integer v) {
            tokensPerRequest = v;
            return this;
        }

        public Builder samples(Long v) {
            samples = v;
            return this;
        }

        public Builder timestampUs(Long v) {
            timestampUs = v;
            return this;
        }

        public Builder dpRank(Integer v) {
            dpRank = v;
            return this;
        }

        public Builder inferred(boolean v) {
            inferred = v;
            return this;
        }

        public Context build() {
            return new Context(device, deviceId, process, pid, processName, component, tokensPerRequest,
                    samples, timestampUs, dpRank, inferred);
        }
    }
}
