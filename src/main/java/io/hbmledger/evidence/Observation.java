package io.hbmledger.evidence;

import java.util.Objects;

/**
 * One number read from one evidence file, before any attribution.
 *
 * <p>Follows {@code shared/contracts/evidence-v1.md}: a memory amount is {@code bytes} (always
 * converted to bytes, whatever unit the file wrote), anything else is {@code value} (counts,
 * ratios, seconds, percentages); exactly one of the two is set. {@code text} keeps the number
 * exactly as written, with its unit, so a reader can check the conversion. Context fields are
 * null when the source does not give them; a value the file does not contain is never made
 * into an observation (absent, not 0).
 *
 * @param quantity snake_case name from the contract, e.g. {@code hbm_used}
 * @param bytes amount in bytes, or null when this is a {@code value}
 * @param value dimensionless number, or null when this is a memory amount
 * @param line 1-based text line, or 1-based data row for CSV/SQLite (header excluded)
 * @param text the value as written in the file, unit included
 * @param dpRank the data-parallel rank of the engine core under which a vLLM worker printed the
 *     line, when the log says so beyond the worker's own label (a worker line nested in its engine
 *     core's prefix: {@code (EngineCore_DP1 pid=9) (Worker_TP0 pid=12) ...}); null otherwise
 */
public record Observation(
        String quantity,
        Long bytes,
        Double value,
        int line,
        String text,
        String device,
        Integer deviceId,
        String process,
        Long pid,
        String processName,
        String component,
        Integer tokensPerRequest,
        Long samples,
        Long timestampUs,
        Integer dpRank) {

    public Observation {
        Objects.requireNonNull(quantity, "quantity");
        if ((bytes == null) == (value == null)) {
            throw new IllegalArgumentException(
                    "observation " + quantity + " needs exactly one of bytes or value");
        }
    }

    /** A memory amount, already converted to bytes. */
    public static Observation bytes(String quantity, long bytes, int line, String text) {
        return new Observation(quantity, bytes, null, line, text,
                null, null, null, null, null, null, null, null, null, null);
    }

    /** A count, ratio, duration or percentage. */
    public static Observation value(String quantity, double value, int line, String text) {
        return new Observation(quantity, null, value, line, text,
                null, null, null, null, null, null, null, null, null, null);
    }

    public boolean isBytes() {
        return bytes != null;
    }

    public Observation withDevice(String d) {
        return new Observation(quantity, bytes, value, line, text, d, deviceId, process, pid,
                processName, component, tokensPerRequest, samples, timestampUs, dpRank);
    }

    public Observation withDeviceId(Integer id) {
        return new Observation(quantity, bytes, value, line, text, device, id, process, pid,
                processName, component, tokensPerRequest, samples, timestampUs, dpRank);
    }

    public Observation withProcess(String p) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, p, pid,
                processName, component, tokensPerRequest, samples, timestampUs, dpRank);
    }

    public Observation withPid(Long p) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, p,
                processName, component, tokensPerRequest, samples, timestampUs, dpRank);
    }

    public Observation withProcessName(String n) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, pid,
                n, component, tokensPerRequest, samples, timestampUs, dpRank);
    }

    public Observation withComponent(String c) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, pid,
                processName, c, tokensPerRequest, samples, timestampUs, dpRank);
    }

    public Observation withTokensPerRequest(Integer t) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, pid,
                processName, component, t, samples, timestampUs, dpRank);
    }

    public Observation withSamples(Long n) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, pid,
                processName, component, tokensPerRequest, n, timestampUs, dpRank);
    }

    public Observation withDpRank(Integer d) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, pid,
                processName, component, tokensPerRequest, samples, timestampUs, d);
    }

    public Observation withTimestampUs(Long t) {
        return new Observation(quantity, bytes, value, line, text, device, deviceId, process, pid,
                processName, component, tokensPerRequest, samples, t, dpRank);
    }
}
