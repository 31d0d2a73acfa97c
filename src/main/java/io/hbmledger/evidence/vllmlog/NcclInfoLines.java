package io.hbmledger.evidence.vllmlog;

import io.hbmledger.evidence.Context;
import io.hbmledger.evidence.Observation;
import io.hbmledger.evidence.Quantity;
import io.hbmledger.evidence.Quote;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads NCCL's {@code NCCL_DEBUG=INFO} lines that the NCCL library writes into the vLLM log (it
 * prints to the process's stdout, so they sit between vLLM's records, without vLLM's worker
 * prefix, under a Ray prefix when Ray relays them). One instance per file: it remembers the
 * allocations it has seen.
 *
 * <p>Source format (NVIDIA/nccl {@code src/debug.cc} ncclDebugLog): {@code HOST:PID:TID [CUDADEV]
 * NCCL INFO MESSAGE}, where CUDADEV is the process-local CUDA device ({@code cudaGetDevice}).
 * The messages read:
 * <ul>
 *   <li>{@code Allocated shareable buffer PTR size N ipcDesc PTR} ({@code transport/p2p.cc},
 *       subsystems P2P|ALLOC): a P2P transport buffer, N bytes of device memory;</li>
 *   <li>{@code [file:line ]Cuda Alloc|Calloc|CallocAsync Size N pointer PTR} ({@code
 *       include/alloc.h}, subsystem ALLOC): any device allocation NCCL makes through its wrappers;</li>
 *   <li>{@code NCCL_BUFFSIZE set by environment to N.} (subsystem ENV, default on);</li>
 *   <li>{@code N coll channels, ...} (init.cc, INIT, default on): the communicator's channels.</li>
 * </ul>
 * With the default {@code NCCL_DEBUG_SUBSYS} (INIT,BOOTSTRAP,ENV) no line gives bytes: only the
 * ALLOC and P2P subsystems print allocations. Without the cuMem API, a P2P buffer is logged twice
 * (the Calloc line, then the shareable-buffer line with the same pointer): an allocation is one
 * observation per process and pointer. Bytes are as NCCL prints them: what it asked for, before
 * the cuMem granularity rounds it up.
 */
final class NcclInfoLines {

    private static final Pattern LINE = Pattern.compile(
            "(?<host>[^\\s:]+):(?<pid>\\d+):(?<tid>\\d+) \\[(?<dev>\\d+)\\] NCCL INFO (?<msg>.*)$");
    private static final Pattern SHAREABLE = Pattern.compile(
            "^Allocated shareable buffer (?<ptr>0x[0-9a-fA-F]+) size (?<n>\\d+)\\b");
    private static final Pattern CUDA_ALLOC = Pattern.compile(
            "^(?:\\S+:\\d+ )?Cuda (?:Alloc|Calloc|CallocAsync) Size (?<n>\\d+) pointer (?<ptr>0x[0-9a-fA-F]+)\\b");
    private static final Pattern BUFFSIZE = Pattern.compile("^NCCL_BUFFSIZE set by environment to (?<n>\\d+)\\b");
    private static final Pattern CHANNELS = Pattern.compile("^(?<n>\\d+) coll channels,");

    private final Set<String> allocations = new HashSet<>();

    /** Cheap test before the patterns. */
    static boolean mayHold(String line) {
        return line.contains("NCCL INFO");
    }

    /** Adds what the line gives; an unreadable number is a warning naming the line. */
    void read(String line, int lineNo, List<Observation> out, List<String> warnings) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return;
        }
        String msg = m.group("msg");
        long pid = Long.parseLong(m.group("pid"));
        Context ctx = Context.builder().device("cuda:" + m.group("dev")).pid(pid).build();
        Matcher a = SHAREABLE.matcher(msg);
        if (!a.find()) {
            a = CUDA_ALLOC.matcher(msg);
            if (!a.find()) {
                a = null;
            }
        }
        if (a != null) {
            Long n = number(a.group("n"), lineNo, warnings);
            if (n != null && n > 0 && allocations.add(pid + "/" + a.group("ptr").toLowerCase(Locale.ROOT))) {
                out.add(Observation.bytes(Quantity.NCCL_ALLOCATED, n, lineNo, a.group("n")).in(ctx));
            }
            return;
        }
        if (!figure(BUFFSIZE.matcher(msg), Quantity.NCCL_BUFFSIZE, true, lineNo, ctx, out, warnings)) {
            figure(CHANNELS.matcher(msg), Quantity.NCCL_CHANNELS, false, lineNo, ctx, out, warnings);
        }
    }

    /** One number of the message, bytes or a count; true when the message was this one. */
    private static boolean figure(Matcher m, Quantity q, boolean bytes, int lineNo, Context ctx,
                                  List<Observation> out, List<String> warnings) {
        if (!m.find()) {
            return false;
        }
        Long n = number(m.group("n"), lineNo, warnings);
        if (n != null) {
            out.add((bytes ? Observation.bytes(q, n, lineNo, m.group("n")) : Observation.value(q, n, lineNo, m.group("n"))).in(ctx));
        }
        return true;
    }

    private static Long number(String digits, int lineNo, List<String> warnings) {
        if (digits.length() > 18) {
            warnings.add("line " + lineNo + ": NCCL printed a number of " + digits.length()
                    + " digits (" + Quote.of(digits) + "), more than a byte count can be; not read");
            return null;
        }
        return Long.parseLong(digits);
    }
}
