package io.lmwarden.router.placement.admission;

import java.util.Arrays;

/**
 * The replies the engines gave lately: the output tokens of the last {@value #WINDOW} steps, and their 90th percentile
 * once {@value #MIN_SEEN} were seen. A newcomer that waited the bound is budgeted for a reply this long instead of its
 * {@code max_tokens} (agents ask for far more than they use: opencode asks for 32,000). Not thread-safe:
 * {@link AdmissionController} guards it.
 */
final class ReplyLengths {

    static final int WINDOW = 256;
    static final int MIN_SEEN = 32;

    private final int[] recent = new int[WINDOW];
    private long seen;

    void served(long outputTokens) {
        if (outputTokens > 0) {
            recent[(int) (seen++ % WINDOW)] = (int) Math.min(Integer.MAX_VALUE, outputTokens);
        }
    }

    /** The 90th percentile of the recent replies in tokens, or -1 while fewer than {@value #MIN_SEEN} were seen. */
    int p90() {
        if (seen < MIN_SEEN) {
            return -1;
        }
        int n = (int) Math.min(seen, WINDOW);
        int[] sorted = Arrays.copyOf(recent, n);
        Arrays.sort(sorted);
        return sorted[Math.min(n - 1, (int) Math.ceil(0.9 * n) - 1)];
    }
}
