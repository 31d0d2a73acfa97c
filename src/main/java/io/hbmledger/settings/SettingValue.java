package io.hbmledger.settings;

import io.hbmledger.ledger.Source;

/**
 * One setting as the evidence states it.
 *
 * @param value the value as written, quotes stripped ({@code 0.8}, {@code True}, {@code torch.bfloat16})
 * @param source the line it was read from
 */
public record SettingValue(String value, Source source) {

    /** The value as a number, or null when it is not one. */
    public Double number() {
        try {
            return Double.valueOf(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The value as a boolean ({@code True}/{@code true}), or null when it is neither true nor false. */
    public Boolean bool() {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> null;
        };
    }
}
