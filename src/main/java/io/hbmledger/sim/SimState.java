package io.hbmledger.sim;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * SIMULATOR state: the whole simulated Ascend host as stored in {@code $HBM_SIM_HOME/state.json}.
 *
 * <p>Units: every memory figure is in bytes unless its name says MiB. npu-smi prints "MB", which
 * on Ascend means MiB (2^20 bytes); the simulator keeps that convention.
 *
 * @param version            format version of state.json (1)
 * @param chipName           npu-smi "Name" column, e.g. {@code 910B1}
 * @param npuSmiVersion      npu-smi tool and driver version printed in the title line
 * @param capacityMib        HBM capacity of each device as npu-smi prints it (MiB)
 * @param runtimeReservedMib memory that the runtime's {@code mem_get_info} total leaves out (MiB):
 *                           a real 64 GiB 910B reports 65464696832 bytes total to torch_npu
 *                           (vllm-ascend 2667 log), i.e. about 3104 MiB less than npu-smi shows
 * @param devices            one entry per NPU, in NPU id order
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SimState(int version, String chipName, String npuSmiVersion, long capacityMib,
        long runtimeReservedMib, List<SimDevice> devices) {

    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    public SimState {
        devices = List.copyOf(devices);
    }

    /** True for a simulated NVIDIA GPU host ({@code hbm-sim init --gpus N}), false for an Ascend one. */
    public boolean gpu() {
        return chipName.startsWith("NVIDIA");
    }

    /** The device with this NPU id; throws {@link IllegalArgumentException} naming the valid ids. */
    public SimDevice device(int id) {
        for (SimDevice d : devices) {
            if (d.id() == id) {
                return d;
            }
        }
        throw new IllegalArgumentException("simulated host has no NPU " + id + " (NPUs 0.."
                + (devices.size() - 1) + ")");
    }

    public long capacityBytes() {
        return capacityMib * MIB;
    }

    /** What the CANN runtime reports as total memory ({@code mem_get_info()[1]}), in bytes. */
    public long runtimeTotalBytes() {
        return (capacityMib - runtimeReservedMib) * MIB;
    }

    /** Bytes used on the device: driver baseline plus every allocation. */
    public long usedBytes(int id) {
        return device(id).usedBytes();
    }

    /** Free bytes as the runtime's {@code mem_get_info()[0]} would report them. */
    public long freeBytes(int id) {
        return Math.max(0, capacityBytes() - usedBytes(id));
    }

    /** A copy with one device replaced. */
    public SimState withDevice(SimDevice replacement) {
        List<SimDevice> copy = new ArrayList<>(devices);
        for (int i = 0; i < copy.size(); i++) {
            if (copy.get(i).id() == replacement.id()) {
                copy.set(i, replacement);
                return new SimState(version, chipName, npuSmiVersion, capacityMib,
                        runtimeReservedMib, copy);
            }
        }
        throw new IllegalArgumentException("simulated host has no NPU " + replacement.id());
    }

    /** A copy without the allocations for which {@code alive} is false. */
    public SimState withoutDead(Predicate<Allocation> alive) {
        List<SimDevice> copy = new ArrayList<>();
        for (SimDevice d : devices) {
            copy.add(d.withoutDead(alive));
        }
        return new SimState(version, chipName, npuSmiVersion, capacityMib, runtimeReservedMib, copy);
    }

    /** A copy without any allocation of this pid (a process that released its memory or exited). */
    public SimState withoutPid(long pid) {
        return withoutDead(a -> a.pid() != pid);
    }

    /**
     * One simulated NPU.
     *
     * @param id           NPU id as npu-smi numbers it
     * @param busId        PCIe bus id printed by npu-smi
     * @param baselineMib  driver/firmware usage when no process runs (MiB); a real idle 910B1 shows
     *                     3376-3437 MB (vllm-ascend 312 npu-smi table)
     * @param allocations  memory held by processes
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SimDevice(int id, String busId, long baselineMib, List<Allocation> allocations) {

        public SimDevice {
            allocations = List.copyOf(allocations);
        }

        public long usedBytes() {
            long sum = baselineMib * MIB;
            for (Allocation a : allocations) {
                sum += a.bytes();
            }
            return sum;
        }

        /** Bytes held by one pid on this device. */
        public long bytesOf(long pid) {
            long sum = 0;
            for (Allocation a : allocations) {
                if (a.pid() == pid) {
                    sum += a.bytes();
                }
            }
            return sum;
        }

        /** Bytes held by one pid under one tag on this device. */
        public long bytesOf(long pid, String tag) {
            long sum = 0;
            for (Allocation a : allocations) {
                if (a.pid() == pid && a.tag().equals(tag)) {
                    sum += a.bytes();
                }
            }
            return sum;
        }

        public SimDevice plus(Allocation a) {
            List<Allocation> copy = new ArrayList<>(allocations);
            copy.add(a);
            return new SimDevice(id, busId, baselineMib, copy);
        }

        /** A copy without the allocations of this pid under this tag. */
        public SimDevice minus(long pid, String tag) {
            List<Allocation> copy = new ArrayList<>();
            for (Allocation a : allocations) {
                if (!(a.pid() == pid && a.tag().equals(tag))) {
                    copy.add(a);
                }
            }
            return new SimDevice(id, busId, baselineMib, copy);
        }

        SimDevice withoutDead(Predicate<Allocation> alive) {
            List<Allocation> copy = new ArrayList<>();
            for (Allocation a : allocations) {
                if (alive.test(a)) {
                    copy.add(a);
                }
            }
            return new SimDevice(id, busId, baselineMib, copy);
        }
    }

    /**
     * Memory held by one process on one device.
     *
     * @param pid         owning process; released when that process is observed dead
     * @param processName npu-smi "Process name" column (may be empty, as real npu-smi prints it)
     * @param tag         what the memory is for, in the simulator's own words: {@code runtime},
     *                    {@code hccl}, {@code weights}, {@code profile}, {@code kv_cache},
     *                    {@code graph}, {@code activation}, {@code hold}; msprof's component split
     *                    is derived from it
     * @param bytes       size in bytes
     * @param pidStartMs  start time of the owning process (epoch milliseconds), so that a reused
     *                    pid (pid_max is often 32768) does not keep a dead process's memory; 0 when
     *                    unknown
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Allocation(long pid, String processName, String tag, long bytes, long pidStartMs) {

        /** An allocation of a pid whose start time is not checked. */
        public Allocation(long pid, String processName, String tag, long bytes) {
            this(pid, processName, tag, bytes, 0);
        }

        /** An allocation owned by the current process. */
        public static Allocation own(String processName, String tag, long bytes) {
            ProcessHandle me = ProcessHandle.current();
            return new Allocation(me.pid(), processName, tag, bytes, SimStateStore.startMillis(me));
        }
    }
}
