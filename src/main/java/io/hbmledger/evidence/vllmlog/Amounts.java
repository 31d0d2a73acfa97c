package io.hbmledger.evidence.vllmlog;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a number as vLLM and PyTorch print it, with an optional thousands separator
 * ({@code 252,800}) and an optional memory unit, and converts memory amounts to bytes.
 *
 * <p>Units, after reading the emitting code:
 * <ul>
 *   <li>{@code GiB}, and {@code GB} from vLLM: GiB. vLLM's "Loading model weights took %.4f GB"
 *       divides by {@code float(2**30)} (vllm/worker/model_runner.py load_model;
 *       vllm_ascend/worker/model_runner.py and model_runner_v1.py load_model print the same).
 *       PyTorch's OOM text (c10 format_size) writes GiB/MiB/KiB and means them.</li>
 *   <li>{@code MiB}, and {@code MB} from early-2024 vLLM: MiB (evidence contract unit table;
 *       DeviceMemoryProfiler's consumed_memory is bytes, shown divided by 2^20).</li>
 *   <li>{@code KiB}/{@code KB}: KiB. {@code B}/{@code bytes}: bytes.</li>
 *   <li>no unit on an integer: bytes ("Available memory: N, total memory: M" of vllm-ascend
 *       worker_v1.py determine_available_memory logs the raw int byte counts; also
 *       {@code --kv-cache-memory=N} of vllm/v1/worker/gpu_worker.py).</li>
 * </ul>
 */
final class Amounts {

    private Amounts() {
    }

    /** Longest number read (digits, separators, sign, fraction); a longer one is refused unparsed. */
    static final int MAX_NUMBER_CHARS = 40;

    private static final BigDecimal KIB = BigDecimal.valueOf(1024L);
    private static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024);
    private static final BigDecimal GIB = BigDecimal.valueOf(1024L * 1024 * 1024);

    private static final Pattern NUMBER_UNIT = Pattern.compile(
            "(?<n>[-+]?(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?|[-+]?\\.\\d+)\\s*(?<u>GiB|Gib|GB|MiB|MB|KiB|KB|bytes|B)?");

    /** A value as written with its number and unit parsed; unit is null when none was written. */
    record Reading(String text, BigDecimal number, String unit) {
    }

    /** Trailing sentence punctuation that is not part of the number ("14.65GiB." "0.98,"). */
    static String trimText(String raw) {
        String s = raw.strip();
        while (!s.isEmpty() && ".,;:)".indexOf(s.charAt(s.length() - 1)) >= 0) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    /** Parses a whole token such as {@code 15.7847 GB}, {@code 252,800} or {@code 1.79GiB}. */
    static Optional<Reading> read(String raw) {
        String text = trimText(raw);
        Matcher m = NUMBER_UNIT.matcher(text);
        // no byte count or ratio needs more; BigDecimal's parse is quadratic in the digits
        if (!m.matches() || m.group("n").length() > MAX_NUMBER_CHARS) {
            return Optional.empty();
        }
        BigDecimal n = new BigDecimal(m.group("n").replace(",", "").replace("+", ""));
        return Optional.of(new Reading(text, n, m.group("u")));
    }

    /**
     * Bytes for a reading, or empty when the unit is missing and the number has a fraction
     * (a fractional count of bytes means the unit was lost, and guessing it would be wrong).
     */
    static Optional<Long> bytes(Reading r) {
        BigDecimal factor;
        String unit = r.unit() == null ? "" : r.unit();
        switch (unit) {
            // "Gib": the memory_usage_post_profile field of vLLM v0.6.3's profiling line (format "%.2fGib")
            case "GiB", "Gib", "GB" -> factor = GIB;
            case "MiB", "MB" -> factor = MIB;
            case "KiB", "KB" -> factor = KIB;
            case "B", "bytes" -> factor = BigDecimal.ONE;
            default -> {
                if (r.number().stripTrailingZeros().scale() > 0) {
                    return Optional.empty();
                }
                factor = BigDecimal.ONE;
            }
        }
        return exact(r.number().multiply(factor));
    }

    /** Whole bytes, or empty when they do not fit a long (an out-of-range figure is unknown). */
    private static Optional<Long> exact(BigDecimal bytes) {
        try {
            return Optional.of(bytes.setScale(0, RoundingMode.HALF_UP).longValueExact());
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
    }

    /**
     * Bytes for a number that the emitting code prints without a unit but as bytes, possibly
     * with a fraction (vllm-ascend computes {@code total * utilization - peak} as a float).
     */
    static Optional<Long> rawBytes(Reading r) {
        return exact(r.number());
    }

    /** True when the text holds more digits than a long (19): read as out of range, not as text. */
    static boolean tooManyDigits(String text) {
        int digits = 0;
        for (int i = 0; i < text.length(); i++) {
            if (Character.isDigit(text.charAt(i)) && ++digits > 19) {
                return true;
            }
        }
        return false;
    }
}
