package io.lmwarden.sim;

import java.util.Locale;

/** How long a simulated reply is, given the request's max_tokens. */
public enum OutputLength {
    /** Every reply is exactly max_tokens long (finish reason {@code length}): what the bench's token budget assumes. */
    FIXED,
    /** Uniform in 1..max_tokens. */
    UNIFORM,
    /**
     * Like a chat model's replies: a seeded log-normal length with a median of {@value #REALISTIC_MEDIAN_TOKENS}
     * tokens, cut at max_tokens, so most replies end with {@code stop} well before an agent's large max_tokens.
     */
    REALISTIC;

    public static final int REALISTIC_MEDIAN_TOKENS = 120;

    /** {@code fixed}, {@code uniform} (or its old name {@code random}), {@code realistic}. */
    public static OutputLength parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "fixed" -> FIXED;
            case "uniform", "random" -> UNIFORM;
            case "realistic" -> REALISTIC;
            default -> throw new IllegalArgumentException("output length must be fixed, uniform or realistic, got '" + text + "'");
        };
    }

    public String flagValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
