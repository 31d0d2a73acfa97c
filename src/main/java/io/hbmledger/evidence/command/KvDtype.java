package io.hbmledger.evidence.command;

import java.util.Locale;
import java.util.Optional;

/**
 * Bytes per element of a {@code --kv-cache-dtype} / {@code kv_cache_dtype=} value, after
 * vllm/utils {@code STR_DTYPE_TO_TORCH_DTYPE} and vllm/config CacheDType: the fp8 variants
 * ({@code fp8}, {@code fp8_e4m3}, {@code fp8_e5m2}, {@code fp8_inc}, {@code fp8_ds_mla}) and
 * vllm-ascend's {@code int8} are 1 byte; {@code half}/{@code float16}/{@code bfloat16} 2;
 * {@code float}/{@code float32} 4. {@code auto} (the model's dtype) and unknown names give none.
 */
public final class KvDtype {

    private KvDtype() {
    }

    public static Optional<Integer> bytes(String dtype) {
        String d = dtype.strip().toLowerCase(Locale.ROOT).replaceFirst("^torch\\.", "");
        if (d.startsWith("fp8") || d.startsWith("float8") || d.equals("int8")) {
            return Optional.of(1);
        }
        return switch (d) {
            case "half", "float16", "fp16", "bfloat16", "bf16" -> Optional.of(2);
            case "float", "float32", "fp32" -> Optional.of(4);
            default -> Optional.empty();
        };
    }
}
