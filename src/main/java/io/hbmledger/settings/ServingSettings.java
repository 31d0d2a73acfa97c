package io.hbmledger.settings;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a run says about how it was served: each setting with the line it was read from. A
 * setting the evidence does not state is absent (not a default): vLLM's defaults change between
 * versions, so they are never assumed here.
 */
public record ServingSettings(Map<Setting, SettingValue> values) {

    public ServingSettings {
        values = values.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(values));
    }

    public static ServingSettings none() {
        return new ServingSettings(Map.of());
    }

    public Optional<SettingValue> get(Setting s) {
        return Optional.ofNullable(values.get(s));
    }

    public Double number(Setting s) {
        return get(s).map(SettingValue::number).orElse(null);
    }

    public Integer integer(Setting s) {
        Double d = number(s);
        return d == null ? null : (int) Math.round(d);
    }

    public Boolean bool(Setting s) {
        return get(s).map(SettingValue::bool).orElse(null);
    }

    /**
     * These settings with {@code other}'s filling the gaps: the first source to state a setting
     * keeps it (callers pass the surest source first).
     */
    public ServingSettings orElse(ServingSettings other) {
        Map<Setting, SettingValue> m = new EnumMap<>(Setting.class);
        m.putAll(other.values);
        m.putAll(values);
        return new ServingSettings(m);
    }
}
