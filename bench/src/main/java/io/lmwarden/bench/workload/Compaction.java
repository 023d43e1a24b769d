package io.lmwarden.bench.workload;

/**
 * What a session does when its context reaches the model's window, as Claude Code's auto-compact does: the call that
 * would not fit becomes a summary request (the whole history plus an instruction, {@code max_tokens} = the summary's
 * size), and the conversation goes on from the system prompt and that summary alone.
 *
 * @param at            compact when the next call's prompt plus its {@code max_tokens} would exceed this share of the
 *                      model's window (0 < at <= 1)
 * @param summaryTokens the summary's length (the compaction call's {@code max_tokens})
 */
public record Compaction(double at, int summaryTokens) {

    /** Never compact: a prompt past the window gets the engine's 400 (the reference workload stays far below it). */
    public static final Compaction NEVER = new Compaction(Double.POSITIVE_INFINITY, 0);

    /** Tokens of the instruction that asks for the summary (the same text for every session). */
    public static final int INSTRUCTION_TOKENS = 200;

    public Compaction {
        if (at != Double.POSITIVE_INFINITY && (!(at > 0) || at > 1 || summaryTokens < 1)) {
            throw new IllegalArgumentException("compaction needs 0 < at <= 1 and summaryTokens >= 1, got at " + at
                    + ", summaryTokens " + summaryTokens);
        }
    }

    public boolean enabled() {
        return at != Double.POSITIVE_INFINITY;
    }

    /** The largest prompt-plus-output a call may have in a window of {@code window} tokens before it compacts. */
    public long limit(int window) {
        return enabled() ? (long) Math.floor(at * window) : Long.MAX_VALUE;
    }

    public String describe() {
        return enabled() ? String.format(java.util.Locale.ROOT, "compaction at %.0f%% of the window to system + a %d-token summary",
                at * 100, summaryTokens) : "no compaction";
    }
}
