package io.lmwarden.router.placement.admission;

import java.util.Map;

/**
 * The service each session has had lately: tokens the engines computed for it (prompt tokens not served from cache,
 * plus output), decaying with a half-life (llm-d's program-aware fairness uses 60 s), so that the admission queue
 * serves the least-served session first and neither long nor short sessions starve. Not thread-safe:
 * {@link AdmissionController} guards it.
 */
public final class AttainedService {

    private record Served(double tokens, long atNanos) {
    }

    private final Map<String, Served> sessions;
    private final long halfLifeNanos;

    public AttainedService(long halfLifeNanos, int sessionsRemembered) {
        this.halfLifeNanos = Math.max(1, halfLifeNanos);
        this.sessions = new BoundedSessions<>(sessionsRemembered);
    }

    public AttainedService(long halfLifeNanos) {
        this(halfLifeNanos, BoundedSessions.DEFAULT_BOUND);
    }

    public void add(String session, long tokens, long nowNanos) {
        if (tokens <= 0) {
            return;
        }
        sessions.put(session, new Served(at(session, nowNanos) + tokens, nowNanos));
    }

    /** The session's service as another router last recorded it ({@code atNanos} on this router's clock). */
    void adopt(String session, double tokens, long atNanos) {
        if (tokens > 0) {
            sessions.put(session, new Served(tokens, atNanos));
        }
    }

    /** The service at its last update, and when (this router's clock; 0 tokens when none), for its {@link SessionFact}. */
    double lastTokens(String session) {
        Served s = sessions.get(session);
        return s == null ? 0 : s.tokens;
    }

    long lastAtNanos(String session) {
        Served s = sessions.get(session);
        return s == null ? 0 : s.atNanos;
    }

    /** The session's decayed service at {@code nowNanos}. */
    public double at(String session, long nowNanos) {
        Served s = sessions.get(session);
        return s == null ? 0 : s.tokens * Math.pow(0.5, (double) (nowNanos - s.atNanos) / halfLifeNanos);
    }

    /**
     * A key that orders sessions by their decayed service at any one moment, and keeps that order as time passes
     * (every session decays by the same factor): log2 of the service at its last update plus that moment in half-lives,
     * in doublings of service. Lower is served first. Service under one token counts as one token at {@code nowNanos}
     * (a session never served, or served long ago), so that a key is always finite and waiting can age it
     * ({@link AdmissionQueue}).
     */
    public double orderKey(String session, long nowNanos) {
        Served s = sessions.get(session);
        if (s == null || at(session, nowNanos) < 1) {
            return (double) nowNanos / halfLifeNanos;
        }
        return Math.log(s.tokens) / Math.log(2) + (double) s.atNanos / halfLifeNanos;
    }
}
