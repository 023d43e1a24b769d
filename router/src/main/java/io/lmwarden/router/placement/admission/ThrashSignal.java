package io.lmwarden.router.placement.admission;

import io.lmwarden.common.logging.LogFields;

import java.util.Map;
import java.util.logging.Logger;

/**
 * Whether the pool thrashes, so that admission has something to save: evidence, never load alone. Sessions that come
 * back home after a pause shorter than the break-even (holding their KV would have cost less than recomputing it) yet
 * find their own prefix gone, as the engines report in {@code cached_tokens}; or an engine whose KV cache is full of
 * running requests while others wait, while such misses are not rare. Without such evidence the router places exactly as its policy does. Engaged, it
 * stays so while admission still finds no room for someone (hysteresis: engaged admission hides the misses it prevents),
 * and lets go once the misses are rare and the budget has had room for a calm period. Not thread-safe:
 * {@link AdmissionController} guards it.
 */
public final class ThrashSignal {

    private static final Logger LOG = Logger.getLogger(ThrashSignal.class.getName());

    /** Weight of one step in the miss rate. */
    static final double ALPHA = 0.1;
    /** Steps of evidence before the miss rate counts. */
    static final int MIN_SAMPLES = 8;
    /** Miss rate at which admission engages, and below which it may let go. */
    static final double ENGAGE_AT = 0.3;
    static final double RELEASE_BELOW = 0.1;
    /** A step found its own prefix missing when the engine served less than this share of it from cache. */
    static final double MISS_BELOW = 0.5;

    private record LastStep(String replica, long tokens) {
    }

    private final Map<String, LastStep> lastSteps;
    private final boolean always;
    private final long calmNanos;
    private double missRate;
    private int samples;
    private boolean engaged;
    private long lastNoRoomNanos = Long.MIN_VALUE / 2;
    private long lastKvFullNanos = Long.MIN_VALUE / 2;
    private long evidenceSteps;
    private long missedSteps;
    private long engagedTimes;

    /**
     * @param always    engaged whatever the evidence ({@code admissionEngage: always})
     * @param calmNanos how long the budget must have had room for everyone before admission lets go
     */
    public ThrashSignal(boolean always, long calmNanos, int sessionsRemembered) {
        this.always = always;
        this.calmNanos = calmNanos;
        this.lastSteps = new BoundedSessions<>(sessionsRemembered);
    }

    public ThrashSignal(boolean always, long calmNanos) {
        this(always, calmNanos, BoundedSessions.DEFAULT_BOUND);
    }

    /**
     * A step of the session was served on {@code replica}: {@code promptTokens} in its prompt, {@code cachedTokens} of
     * them from the engine's cache. It is evidence when the session's previous step was served on the same replica and
     * it came back from a pause that admission would have held it through ({@code heldThrough}: shorter than the
     * break-even, by a session likely to return within it) — a miss there is one admission could have saved.
     */
    public void served(String session, String replica, long promptTokens, long cachedTokens, long outputTokens, boolean heldThrough,
                       long nowNanos) {
        if (promptTokens <= 0 || cachedTokens < 0) {
            return;
        }
        LastStep previous = lastSteps.put(session, new LastStep(replica, promptTokens + Math.max(0, outputTokens)));
        if (previous == null || !previous.replica.equals(replica) || !heldThrough) {
            return;
        }
        long own = Math.min(previous.tokens, promptTokens);
        boolean missed = cachedTokens < MISS_BELOW * own;
        evidenceSteps++;
        if (missed) {
            missedSteps++;
        }
        samples++;
        missRate += ALPHA * ((missed ? 1 : 0) - missRate);
        update(nowNanos);
    }

    /** An engine's KV cache is full of running requests and more are waiting: evidence of thrashing by itself. */
    public void kvFullWithQueue(long nowNanos) {
        lastKvFullNanos = nowNanos;
        update(nowNanos);
    }

    /** Engaged admission found no room for a request (it waits): the pressure that keeps admission engaged. */
    public void noRoom(long nowNanos) {
        lastNoRoomNanos = nowNanos;
    }

    public boolean engaged(long nowNanos) {
        if (always) {
            return true;
        }
        update(nowNanos);
        return engaged;
    }

    private void update(long nowNanos) {
        boolean misses = samples >= MIN_SAMPLES && missRate >= ENGAGE_AT;
        // An engine full of running requests is thrashing only when sessions also lose their prefixes: long prompts fill
        // an engine without evicting anyone's (claude-code-tools on a 38k-token replica), and a budget would only idle it.
        boolean kvFull = nowNanos - lastKvFullNanos < calmNanos && samples >= MIN_SAMPLES && missRate >= RELEASE_BELOW;
        if (!engaged && (misses || kvFull)) {
            engaged = true;
            engagedTimes++;
            lastNoRoomNanos = nowNanos;
            LogFields.info(LOG, "the pool thrashes", "evidence", misses ? "own-prefix misses" : "engine KV full with requests waiting",
                    "ownPrefixMissRate", Math.round(missRate * 100) / 100.0);
        } else if (engaged && !kvFull && missRate < RELEASE_BELOW && nowNanos - lastNoRoomNanos >= calmNanos) {
            engaged = false;
            LogFields.info(LOG, "the pool no longer thrashes: few own-prefix misses, and room for every session for a calm period",
                    "ownPrefixMissRate", Math.round(missRate * 100) / 100.0);
        }
    }

    /** For the API: whether engaged, the miss rate, and the evidence counted. */
    public Map<String, Object> state(long nowNanos) {
        return Map.of("engaged", engaged(nowNanos), "always", always, "ownPrefixMissRate", Math.round(missRate * 1000) / 1000.0,
                "evidenceSteps", evidenceSteps, "missedSteps", missedSteps, "engagedTimes", engagedTimes);
    }
}
