package io.lmwarden.router.config;

import io.lmwarden.common.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One router setting, declared once with everything about it (as Apache Flink's {@code ConfigOption}):
 * its YAML key (from which the flag and the environment variable follow), its type and parser, its
 * default, its description and its checks. Every way a value arrives — flag, environment, YAML file,
 * {@code PUT /api/policy}, code calling {@link RouterConfig#with} — goes through {@link #parse} or
 * {@link #check}, so a value is checked in exactly one place, here.
 *
 * <p>Declared as constants of the area record that holds the value ({@link ServerSettings},
 * {@link AdmissionSettings}, …); {@link SettingsTable} lists the areas.
 *
 * @param <T> the value's type, as the area record's component has it
 */
public final class Setting<T> {

    private record Check<T>(Predicate<T> holds, String rule) {
    }

    private final String key;
    private final String type;
    private final String javaType;
    private final Function<String, T> parser;
    private final String defaultText;
    private final String description;
    private final List<Check<T>> checks;

    private Setting(String key, String type, String javaType, Function<String, T> parser, String defaultText, String description,
                    List<Check<T>> checks) {
        this.key = key;
        this.type = type;
        this.javaType = javaType;
        this.parser = parser;
        this.defaultText = defaultText;
        this.description = description;
        this.checks = List.copyOf(checks);
    }

    /**
     * A setting of any type. {@code parser} gets the trimmed text and throws {@link IllegalArgumentException}
     * with a message that completes "{@code <key> }…" (e.g. "must be a whole number"); it is never
     * called with the empty text unless the type allows it.
     */
    public static <T> Setting<T> of(String key, String type, Class<T> javaType, Function<String, T> parser, String defaultText,
                                    String description) {
        return new Setting<>(key, type, javaType.getName(), parser, defaultText, description, List.of());
    }

    /** As {@link #of}, for a generic type: {@code javaType} is its name as reflection writes it, e.g. {@code java.util.Optional<java.lang.String>}. */
    public static <T> Setting<T> ofGeneric(String key, String type, String javaType, Function<String, T> parser, String defaultText,
                                           String description) {
        return new Setting<>(key, type, javaType, parser, defaultText, description, List.of());
    }

    public static Setting<Integer> integer(String key, int defaultValue, String description) {
        return of(key, "integer", Integer.class, Setting::parseInt, Integer.toString(defaultValue), description);
    }

    public static Setting<Double> decimal(String key, String defaultText, String description) {
        return of(key, "number", Double.class, Setting::parseDouble, defaultText, description);
    }

    public static Setting<Boolean> bool(String key, boolean defaultValue, String description) {
        return of(key, "boolean", Boolean.class, Setting::parseBoolean, Boolean.toString(defaultValue), description);
    }

    public static Setting<Duration> duration(String key, String defaultText, String description) {
        return of(key, "duration", Duration.class, Setting::parseDuration, defaultText, description);
    }

    /** A byte size such as {@code 32MiB}, {@code 512KiB} or a number of bytes. */
    public static Setting<Long> bytes(String key, String defaultText, String description) {
        return of(key, "byte size", Long.class, Setting::parseBytes, defaultText, description);
    }

    public static Setting<String> text(String key, String defaultText, String description) {
        return of(key, "text", String.class, t -> t, defaultText, description);
    }

    /** Text that may be left out (no default); empty when not set. */
    public static Setting<Optional<String>> optionalText(String key, String description) {
        return ofGeneric(key, "text", "java.util.Optional<java.lang.String>", t -> t.isEmpty() ? Optional.<String>empty() : Optional.of(t), "",
                description);
    }

    /** One of a fixed list of words. */
    public static Setting<String> choice(String key, String defaultText, List<String> choices, String description) {
        String type = choices.size() == 2 ? String.join(" or ", choices) : "name";
        return of(key, type, String.class, t -> t, defaultText, description).check(choices::contains, "one of " + String.join(", ", choices));
    }

    /** A whole number that may be left out (no default). */
    public static Setting<OptionalInt> optionalInteger(String key, String description) {
        return of(key, "integer", OptionalInt.class, t -> t.isEmpty() ? OptionalInt.empty() : OptionalInt.of(parseInt(t)), "", description);
    }

    /** A comma separated list (a YAML sequence is joined with commas); empty when not set. */
    public static Setting<List<String>> list(String key, String description) {
        return ofGeneric(key, "list", "java.util.List<java.lang.String>", Setting::splitList, "", description);
    }

    /** The same setting, with one more condition its values must meet; {@code rule} completes "must be …". */
    public Setting<T> check(Predicate<T> holds, String rule) {
        List<Check<T>> more = new ArrayList<>(checks);
        more.add(new Check<>(holds, rule));
        return new Setting<>(key, type, javaType, parser, defaultText, description, more);
    }

    /** For whole numbers: at least {@code min}. */
    public Setting<T> atLeast(int min) {
        return check(v -> ((Number) v).doubleValue() >= min, ">= " + min);
    }

    /** For whole numbers: from {@code min} to {@code max}. */
    public Setting<T> between(int min, int max) {
        return check(v -> {
            long n = v instanceof OptionalInt o ? (o.isPresent() ? o.getAsInt() : min) : ((Number) v).longValue();
            return n >= min && n <= max;
        }, min + ".." + max);
    }

    /** For durations and numbers: greater than zero. */
    public Setting<T> positive() {
        return check(v -> v instanceof Duration d ? !d.isZero() && !d.isNegative() : ((Number) v).doubleValue() > 0, "> 0");
    }

    /** For durations: zero or more. */
    public Setting<T> notNegative() {
        return check(v -> !((Duration) v).isNegative(), ">= 0");
    }

    /** Key in the YAML file, e.g. {@code spillThreshold}. */
    public String key() {
        return key;
    }

    /** Command line flag, e.g. {@code --spill-threshold}. */
    public String flag() {
        return "--" + key.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    /** Environment variable, e.g. {@code LMW_SPILL_THRESHOLD}. */
    public String env() {
        return "LMW_" + key.replaceAll("([A-Z])", "_$1").toUpperCase(Locale.ROOT);
    }

    /** What kind of value it takes, in words: integer, duration, byte size, … */
    public String type() {
        return type;
    }

    /** The Java type of its values, as reflection names it (primitives boxed): what the area record's component must be. */
    public String javaType() {
        return javaType;
    }

    /** The default as written in the README; empty when the setting has none. */
    public String defaultText() {
        return defaultText;
    }

    public String description() {
        return description;
    }

    /** The default, parsed and checked like any other value. */
    public T defaultValue() {
        return parse(defaultText);
    }

    /**
     * Parses and checks a value as people write it.
     *
     * @throws IllegalArgumentException naming the setting, the rule and the text
     */
    public T parse(String text) {
        String t = text == null ? "" : text.trim();
        T value;
        try {
            value = parser.apply(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " " + e.getMessage() + ", got '" + t + "'", e);
        }
        return check(value, t);
    }

    /** Checks a value that code made (already of the right type); returns it. */
    public T check(T value) {
        return check(value, String.valueOf(value));
    }

    private T check(T value, String shown) {
        Objects.requireNonNull(value, key);
        for (Check<T> c : checks) {
            if (!c.holds().test(value)) {
                throw new IllegalArgumentException(key + " must be " + c.rule() + ", got '" + shown + "'");
            }
        }
        return value;
    }

    @Override
    public String toString() {
        return key;
    }

    private static int parseInt(String t) {
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number");
        }
    }

    private static double parseDouble(String t) {
        try {
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a number");
        }
    }

    private static boolean parseBoolean(String t) {
        return switch (t.toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes", "1" -> true;
            case "false", "off", "no", "0" -> false;
            default -> throw new IllegalArgumentException("must be true or false (on/off)");
        };
    }

    private static Duration parseDuration(String t) {
        try {
            return Durations.parse(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("must be a duration such as 500ms, 30s, 1.5s, 5m, 2h or 1h30m");
        }
    }

    private static long parseBytes(String t) {
        try {
            return ByteSizes.parse(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("must be a byte size such as 32MiB, 512KiB or 1048576");
        }
    }

    private static List<String> splitList(String t) {
        return t.isEmpty() ? List.of() : Arrays.stream(t.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }
}
