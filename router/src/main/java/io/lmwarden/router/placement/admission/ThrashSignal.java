package io.lmwarden.router.placement.admission;

import io.lmwarden.common.logging.LogFields;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Whether the pool thrashes, so that admission has something to save: evidence, never load alone. Sessions that come
 * back home after a pause shorter than the break-even (holding their KV would have cost less than recomputing it) yet
 * find their own prefix gone, as the engines report in {@code cached_tokens}: each such step weighs what it paid to
 * have its prefix back, as a share of recomputing it all ({@link TierLoads#missShare}: the tokens not cached are a
 * recompute, those loaded from a host tier count at the tier's load cost), so a tier too small for the working sets,
 * which leaves every return a start loaded and the rest recomputed, is seen as the thrash it is; or an engine whose KV cache is full of
 * running requests while others wait, while such misses are not rare. Without such evidence the router places exactly as its policy does. Engaged, it
 * stays so while admission still finds no room for someone (hysteresis: engaged admission hides the misses it prevents),
 * and lets go once the misses are rare and the budget has had room for a calm period.
 *
 * <p>In a cluster the evidence is the cluster's: every router decides on its own evidence and its peers' as they
 * report it ({@link AdmissionEvidence}: the miss rates weighed by their samples, the latest engine seen full, the
 * latest time admission found no room), each the same way, so all engage and let go together (as late as a report).
 * Not thread-safe: {@link AdmissionController} guards it.
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
    /** A step counts as missed (in {@code missedSteps}) when it paid at least this share of recomputing its own prefix. */
    static final double MISSED_AT = 0.5;

    private record LastStep(String replica, long tokens) {
    }

    private final Map<String, LastStep> lastSteps;
    private final PeerEvidence peers;
    private final EpochClock epoch;
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
        this(always, calmNanos, sessionsRemembered, PeerEvidence.NONE, EpochClock.IDENTITY);
    }

    /** With the peers' evidence, whose times {@code epoch} converts to this router's clock. */
    public ThrashSignal(boolean always, long calmNanos, int sessionsRemembered, PeerEvidence peers, EpochClock epoch) {
        this.peers = peers;
        this.epoch = epoch;
        this.always = always;
        this.calmNanos = calmNanos;
        this.lastSteps = new BoundedSessions<>(sessionsRemembered);
    }

    public ThrashSignal(boolean always, long calmNanos) {
        this(always, calmNanos, BoundedSessions.DEFAULT_BOUND);
    }

    /**
     * A step of the session was served on {@code replica}: {@code promptTokens} in its prompt, {@code cachedTokens} of
     * them from the engine's cache (no host tier: all of them local). It is evidence when the session's previous step was
     * served on the same replica and it came back from a pause that admission would have held it through
     * ({@code heldThrough}: shorter than the break-even, by a session likely to return within it) — a miss there is one
     * admission could have saved.
     */
    public void served(String session, String replica, long promptTokens, long cachedTokens, long outputTokens, boolean heldThrough,
                       long nowNanos) {
        served(session, replica, promptTokens, cachedTokens, outputTokens, heldThrough, TierLoads.Split.NO_TIER, nowNanos);
    }

    /**
     * The same, on a replica whose cached tokens came {@code tier}'s share from its host tier: the step weighs in the
     * miss rate by what it paid to have its own prefix back ({@link TierLoads#missShare}).
     */
    void served(String session, String replica, long promptTokens, long cachedTokens, long outputTokens, boolean heldThrough,
                TierLoads.Split tier, long nowNanos) {
        if (promptTokens <= 0 || cachedTokens < 0) {
            return;
        }
        LastStep previous = lastSteps.put(session, new LastStep(replica, promptTokens + Math.max(0, outputTokens)));
        if (previous == null || !previous.replica.equals(replica) || !heldThrough) {
            return;
        }
        double paid = TierLoads.missShare(Math.min(previous.tokens, promptTokens), cachedTokens, tier);
        evidenceSteps++;
        if (paid >= MISSED_AT) {
            missedSteps++;
        }
        samples++;
        missRate += ALPHA * (paid - missRate);
        update(nowNanos);
    }

    /** The session's previous step as another router served it (from the cluster's {@link SessionFact}). */
    void adopt(String session, String replica, long tokens) {
        if (!replica.isEmpty() && tokens > 0) {
            lastSteps.put(session, new LastStep(replica, tokens));
        }
    }

    /** The session's last served step's replica ("" when none) and tokens, for its {@link SessionFact}. */
    String lastReplica(String session) {
        LastStep s = lastSteps.get(session);
        return s == null ? "" : s.replica;
    }

    long lastTokens(String session) {
        LastStep s = lastSteps.get(session);
        return s == null ? 0 : s.tokens;
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
        List<AdmissionEvidence> others = peers.reports();
        int n = AdmissionEvidence.samples(samples, others);
        double rate = AdmissionEvidence.missRate(samples, missRate, others);
        long kvFullAt = AdmissionEvidence.latest(lastKvFullNanos, others, true, epoch);
        long noRoomAt = AdmissionEvidence.latest(lastNoRoomNanos, others, false, epoch);
        boolean misses = n >= MIN_SAMPLES && rate >= ENGAGE_AT;
        // An engine full of running requests is thrashing only when sessions also lose their prefixes: long prompts fill
        // an engine without evicting anyone's (claude-code-tools on a 38k-token replica), and a budget would only idle it.
        boolean kvFull = nowNanos - kvFullAt < calmNanos && n >= MIN_SAMPLES && rate >= RELEASE_BELOW;
        if (!engaged && (misses || kvFull)) {
            engaged = true;
            engagedTimes++;
            lastNoRoomNanos = nowNanos;
            LogFields.info(LOG, "the pool thrashes", "evidence", misses ? "own-prefix misses" : "engine KV full with requests waiting",
                    "ownPrefixMissRate", Math.round(rate * 100) / 100.0, "routers", others.size() + 1);
        } else if (engaged && !kvFull && rate < RELEASE_BELOW && nowNanos - noRoomAt >= calmNanos) {
            engaged = false;
            LogFields.info(LOG, "the pool no longer thrashes: few own-prefix misses, and room for every session for a calm period",
                    "ownPrefixMissRate", Math.round(rate * 100) / 100.0, "routers", others.size() + 1);
        }
    }

    /** This router's own evidence, for its peers (times on the wall clock, 0 for never); the pause fields left 0. */
    AdmissionEvidence evidence() {
        return new AdmissionEvidence(samples, missRate, evidenceSteps, missedSteps, epochOrNever(lastKvFullNanos),
                epochOrNever(lastNoRoomNanos), 0, 0, 0);
    }

    private long epochOrNever(long localNanos) {
        return localNanos == Long.MIN_VALUE / 2 ? 0 : epoch.toEpoch(localNanos);
    }

    /**
     * For the API: whether engaged, and the evidence it decides on: the cluster's miss rate and steps counted (this
     * router's and its peers' as reported; alone, its own), and this router's own steps beside them.
     */
    public Map<String, Object> state(long nowNanos) {
        List<AdmissionEvidence> others = peers.reports();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engaged", engaged(nowNanos));
        m.put("always", always);
        m.put("ownPrefixMissRate", Math.round(AdmissionEvidence.missRate(samples, missRate, others) * 1000) / 1000.0);
        m.put("evidenceSteps", AdmissionEvidence.evidenceSteps(evidenceSteps, others, false));
        m.put("missedSteps", AdmissionEvidence.evidenceSteps(missedSteps, others, true));
        m.put("evidenceStepsHere", evidenceSteps);
        m.put("missedStepsHere", missedSteps);
        m.put("routersCounted", others.size() + 1);
        m.put("engagedTimes", engagedTimes);
        return m;
    }
}
