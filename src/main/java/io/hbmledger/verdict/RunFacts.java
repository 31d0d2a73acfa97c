package io.hbmledger.verdict;

import java.util.List;

/**
 * Everything the findings are worked out from, gathered at the edge from the evidence set and
 * the ledger. Pure data.
 *
 * @param servers the server instances, each start of each engine apart, in start order
 * @param devices the devices with their samples at the ledger's moment
 * @param peerUtilizations utilizations of other instances sharing the devices, in start order,
 *     when the user or the run names them (the instances whose logs the run does not hold)
 * @param accelerator which accelerator the evidence shows, for the findings' wording
 * @param serverPids the pids the evidence ties to the server (its log's worker prefixes,
 *     {@code --server-pid}, the collect record), in ascending order; empty when none is named
 * @param otherServices serving programs other than vLLM that the evidence's prose names, one per
 *     program, in the order named: they hold memory of their own on a card they share
 * @param containers the containers whose start commands the evidence holds, with the cards each
 *     was given, in the order written
 * @param allocatorSettings the allocator variables the evidence shows set (collect_env's environment,
 *     a start script's exports), the last of each variable
 */
public record RunFacts(List<ServerFacts> servers, List<DeviceFacts> devices, List<Figure> peerUtilizations,
                       Accelerator accelerator, List<Long> serverPids, List<OtherService> otherServices,
                       List<Container> containers, List<AllocatorSetting> allocatorSettings) {

    public RunFacts {
        servers = List.copyOf(servers);
        devices = List.copyOf(devices);
        peerUtilizations = List.copyOf(peerUtilizations);
        serverPids = List.copyOf(serverPids);
        otherServices = List.copyOf(otherServices);
        containers = List.copyOf(containers);
        allocatorSettings = List.copyOf(allocatorSettings);
    }

    /** Facts of a run whose evidence holds no container start command and shows no allocator variable. */
    public RunFacts(List<ServerFacts> servers, List<DeviceFacts> devices, List<Figure> peerUtilizations,
                    Accelerator accelerator, List<Long> serverPids, List<OtherService> otherServices) {
        this(servers, devices, peerUtilizations, accelerator, serverPids, otherServices, List.of(), List.of());
    }

    /**
     * PyTorch's allocator variable as the evidence shows it set.
     *
     * @param variable {@code PYTORCH_CUDA_ALLOC_CONF} or {@code PYTORCH_NPU_ALLOC_CONF}
     * @param value its value as written
     * @param expandable whether the value turns expandable_segments on
     * @param source where it is set
     */
    public record AllocatorSetting(String variable, String value, boolean expandable, io.hbmledger.ledger.Source source) {
    }

    /** The setting of one variable, if the evidence shows it. */
    public java.util.Optional<AllocatorSetting> allocator(String variable) {
        return allocatorSettings.stream().filter(a -> a.variable().equals(variable)).findFirst();
    }

    /** Facts of a run whose evidence names no server pid and no other serving program. */
    public RunFacts(List<ServerFacts> servers, List<DeviceFacts> devices, List<Figure> peerUtilizations,
                    Accelerator accelerator) {
        this(servers, devices, peerUtilizations, accelerator, List.of(), List.of());
    }

    /**
     * Another serving program the evidence names.
     *
     * @param program its usual name, e.g. "MIS-TEI (text-embeddings-inference)"
     * @param shortName how a list names it, e.g. "MIS-TEI"
     * @param source where it is named, the name as written
     * @param rollback where the evidence says rolling it back to an older image or version was the
     *     fix, the image or version as written; null when it does not
     */
    public record OtherService(String program, String shortName, io.hbmledger.ledger.Source source,
                               io.hbmledger.ledger.Source rollback) {

        /** "MIS-TEI (text-embeddings-inference), named at file:1 "mis-tei:7.2.RC1"". */
        public String said() {
            return program + ", named at " + source.shortForm();
        }
    }

    /**
     * A container a start command gives cards to ({@code docker run --device /dev/davinciN}).
     *
     * @param program the serving program it runs ("vLLM", "MIS-TEI (text-embeddings-inference)"), or
     *     null when the command does not say
     * @param cards the NPU ids of the host it was given, in the order written
     * @param sources the device flags, one per card
     */
    public record Container(String program, List<Integer> cards, List<io.hbmledger.ledger.Source> sources) {

        public Container {
            cards = List.copyOf(cards);
            sources = List.copyOf(sources);
        }
    }

    /** Told from the evidence (an nvidia-smi sample or CUDA device names, npu-smi or msprof), else unknown. */
    public enum Accelerator {
        NPU("NPU", "NPU runtime"), GPU("GPU", "CUDA driver"), UNKNOWN("device", "driver");

        private final String device;
        private final String runtime;

        Accelerator(String device, String runtime) {
            this.device = device;
            this.runtime = runtime;
        }

        /** "NPU", "GPU" or "device", as in "the other NPU processes". */
        public String device() {
            return device;
        }

        /** What holds memory outside the engine's view: "NPU runtime", "CUDA driver", "driver". */
        public String runtime() {
            return runtime;
        }
    }
}
