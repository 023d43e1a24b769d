package io.lmwarden.bench.workload;

import java.time.Duration;

/**
 * The shape of one agent-style session, in tokens and workload time.
 *
 * @param systemTokens     shared system prompt, identical for every session
 * @param firstTokens      the session's unique first user message
 * @param followUpSteps    steps after the first; each appends the previous reply and {@code stepTokens} new tokens
 * @param stepTokens       new user tokens per follow-up step
 * @param maxOutputTokens  max_tokens of every request
 * @param thinkTime        mean pause between a reply and the next step (tool and client time), workload time
 * @param thinkJitter      the pause is uniform in mean × [1 - jitter, 1 + jitter]
 * @param seed             drives every prompt and pause, so variants see the same sessions
 */
public record WorkloadSpec(
        int systemTokens,
        int firstTokens,
        int followUpSteps,
        int stepTokens,
        int maxOutputTokens,
        Duration thinkTime,
        double thinkJitter,
        long seed) {

    /** The simulator's (and a rough English) token size: ~4 characters per token. */
    public static final int CHARS_PER_TOKEN = 4;

    public WorkloadSpec {
        if (systemTokens < 0 || firstTokens < 1 || followUpSteps < 0 || stepTokens < 1 || maxOutputTokens < 1) {
            throw new IllegalArgumentException("token sizes must be positive (system prompt may be 0), steps >= 0");
        }
        if (thinkTime.isNegative()) {
            throw new IllegalArgumentException("think time must be >= 0");
        }
        if (thinkJitter < 0 || thinkJitter > 1) {
            throw new IllegalArgumentException("think jitter must be within 0..1, got " + thinkJitter);
        }
    }

    /** The reference workload of ../shared/WORKLOAD.md. */
    public static WorkloadSpec reference() {
        return new WorkloadSpec(3500, 7300, 5, 400, 256, Duration.ofSeconds(2), 0.75, 42);
    }

    public WorkloadSpec withSeed(long s) {
        return new WorkloadSpec(systemTokens, firstTokens, followUpSteps, stepTokens, maxOutputTokens, thinkTime, thinkJitter, s);
    }

    /** Requests per session: the first step plus the follow-ups. */
    public int requestsPerSession() {
        return 1 + followUpSteps;
    }
}
