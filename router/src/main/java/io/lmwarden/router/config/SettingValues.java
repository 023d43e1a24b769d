package io.lmwarden.router.config;

import java.util.HashMap;
import java.util.Map;

/**
 * A value for every setting of {@link SettingsTable#ALL}, each parsed and checked by its {@link Setting}:
 * what {@link Area}s are built from. Immutable; {@link #with} makes a changed copy.
 */
public final class SettingValues {

    private final Map<Setting<?>, Object> values;

    private SettingValues(Map<Setting<?>, Object> values) {
        this.values = Map.copyOf(values);
    }

    /**
     * Resolves every setting from the given texts, with precedence flag &gt; environment &gt; YAML file &gt; default.
     *
     * @param flags values given on the command line (only those given)
     * @param env   the process environment (only {@code LMW_*} keys are read)
     * @param file  values from the YAML file, by YAML key
     * @throws IllegalArgumentException naming the setting, where its value came from and what is wrong with it
     */
    public static SettingValues resolve(Map<Setting<?>, String> flags, Map<String, String> env, Map<String, String> file) {
        Map<Setting<?>, Object> values = new HashMap<>();
        for (Setting<?> s : SettingsTable.ALL) {
            String text = s.defaultText();
            String from = "the default";
            if (file.containsKey(s.key())) {
                text = file.get(s.key());
                from = "the config file";
            }
            if (env.containsKey(s.env())) {
                text = env.get(s.env());
                from = s.env();
            }
            if (flags.containsKey(s)) {
                text = flags.get(s);
                from = s.flag();
            }
            try {
                values.put(s, s.parse(text));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " (from " + from + ")", e);
            }
        }
        return new SettingValues(values);
    }

    /** Every setting at its default. */
    public static SettingValues defaults() {
        return resolve(Map.of(), Map.of(), Map.of());
    }

    @SuppressWarnings("unchecked")
    public <T> T get(Setting<T> setting) {
        Object v = values.get(setting);
        if (v == null) {
            throw new IllegalArgumentException("unknown setting " + setting.key() + ": not listed in SettingsTable.AREAS");
        }
        return (T) v;
    }

    /** A copy with one value changed, checked by its setting. */
    public <T> SettingValues with(Setting<T> setting, T value) {
        get(setting);
        Map<Setting<?>, Object> changed = new HashMap<>(values);
        changed.put(setting, setting.check(value));
        return new SettingValues(changed);
    }

    /** A copy with several values changed (a whole area's, from {@link Area#valuesOf}). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    SettingValues withAll(Map<Setting<?>, Object> changes) {
        SettingValues out = this;
        for (Map.Entry<Setting<?>, Object> e : changes.entrySet()) {
            out = out.with((Setting) e.getKey(), e.getValue());
        }
        return out;
    }
}
