package io.lmwarden.router.placement.admission;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * When a paused session will send its next step, estimated from its own pauses shrunk towards a pool-wide log-normal
 * prior (in the spirit of Continuum's TTLs from tool-run distributions): a session with few pauses behaves like the
 * pool, one with many like itself. A pause may also be a session's end (it never comes back); the chance of that is
 * learned from pauses whose outcome is known (below), not from the share of first steps. The prior is kept per
 * agent kind (how the session names itself) as well as pool-wide, so Claude Code's tool pauses and a bot's do not
 * blur into one. Times are on the
 * router's wall clock, in nanoseconds. Not thread-safe: {@link AdmissionController} guards it.
 *
 * <p>The end chance is learned from pauses whose outcome is known: a pause that ended in a step returned, one that lasted
 * past the session's own 99th percentile ({@link #settleEnds}) ended the session (undone if it comes back after all).
 * Counting starts instead (every session starts once and ends once) holds only in a steady state: while sessions join —
 * a pool filling up, a bench's first minute — starts outnumber ends many times, the estimate said most pauses were
 * last ones, and residents two seconds into a two-second pause were revoked as likely gone.
 */
public final class ReturnTimes {

    /** The prior's deviation of ln(pause) before the pool has taught anything: a factor of e either way. */
    static final double PRIOR_SIGMA = 1.0;
    /** Pseudo-pauses of the pool's estimate a session's own are weighed against. */
    static final double SHRINK_WEIGHT = 2;
    /** No session is trusted to be more regular than this (ln units): tool runs vary. */
    static final double MIN_SIGMA = 0.25;
    /** Per pause, the weight of the pool's past: the prior follows roughly the last 200 pauses. */
    static final double POOL_DECAY = 0.995;
    /** Per pause whose outcome is known, the weight of the past in the end chance. */
    static final double END_DECAY = 0.999;
    /** A pause past this quantile of the session's own estimate is taken for its end. */
    static final double END_QUANTILE_Z = 2.326;
    /** However irregular a session, a pause of an hour is taken for its end (and undone if it comes back). */
    static final long MAX_END_HORIZON_NANOS = 3_600_000_000_000L;
    /** Before any pause's outcome is known: sessions of ten steps (one pause in ten is the last). */
    static final double PRIOR_ENDS = 1;
    static final double PRIOR_RETURNS = 9;

    /** One session's pauses (Welford's running mean and sum of squares of ln(pause)) and its steps in flight. */
    private static final class History {
        final String session;
        /** Its steps ended, through this router or (adopted from the cluster's fact) any. */
        long steps;
        int inFlight;
        long lastEndNanos = -1;
        /** When its next step reached the router, while that step waits for admission; else -1. */
        long arrivedNanos = -1;
        long lastPauseNanos = -1;
        int pauses;
        double mean;
        double m2;
        /** Its agent kind's prior, or the pool's when kinds are not told apart. */
        Prior prior;
        /** While paused: its place in {@link #pausedUntil} (when the pause counts as its end); else null. */
        PauseDeadline deadline;
        /** Its latest pause was counted as its end. */
        boolean countedEnded;

        History(String session) {
            this.session = session;
        }
    }

    /** When a paused session's pause is taken for its end; {@code seq} keeps equal times apart. */
    private record PauseDeadline(long atNanos, long seq) implements Comparable<PauseDeadline> {
        @Override
        public int compareTo(PauseDeadline o) {
            int c = Long.compare(atNanos, o.atNanos);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /**
     * A pool's log-normal estimate of pauses: exponentially weighted mean and variance of ln(pause). The weight
     * starts at {@link #SHRINK_WEIGHT}, so a new pool follows its first pauses quickly.
     */
    private static final class Prior {
        double weight = SHRINK_WEIGHT;
        double mean;
        double var;

        Prior(double mean, double var) {
            this.mean = mean;
            this.var = var;
        }

        void learn(double x) {
            weight = weight * POOL_DECAY + 1;
            double d = x - mean;
            mean += d / weight;
            var += (d * (x - mean) - var) / weight;
        }
    }

    /** Agent kinds remembered; more are rare (one per way a client names its session) and share the pool's prior. */
    static final int MAX_KINDS = 64;

    private final Map<String, History> sessions;
    /** Every session's pauses. */
    private final Prior pool;
    /**
     * Per agent kind (how the client names its session: Claude Code's header, Codex's, a plain X-Session-Id …), its
     * own sessions' pauses: Claude Code's tool runs and a CI bot's loop differ, and a session's first pauses are
     * better guessed from its kind than from the whole pool. A kind starts from the pool's estimate of the moment.
     */
    private final Map<String, Prior> kinds = new HashMap<>();
    /** Paused sessions by when their pause will be taken for their end. */
    private final TreeMap<PauseDeadline, History> pausedUntil = new TreeMap<>();
    private long deadlineSeq;
    /** Pauses that ended a session, and pauses that ended in a step: exponentially weighted counts. */
    private double ends = PRIOR_ENDS;
    private double returns = PRIOR_RETURNS;

    /** @param priorMedianNanos the pause assumed before any is observed */
    public ReturnTimes(long priorMedianNanos, int sessionsRemembered) {
        this.sessions = new BoundedSessions<>(sessionsRemembered);
        this.pool = new Prior(Math.log(Math.max(1, priorMedianNanos)), PRIOR_SIGMA * PRIOR_SIGMA);
    }

    public ReturnTimes(long priorMedianNanos) {
        this(priorMedianNanos, BoundedSessions.DEFAULT_BOUND);
    }

    /** A step of the session starts: the pause since its last step ended is learned from. */
    public void stepStarted(String session, long nowNanos) {
        stepStarted(session, null, nowNanos);
    }

    /** A step of a session of agent kind {@code kind} (null: unknown) starts. */
    public void stepStarted(String session, String kind, long nowNanos) {
        History h = sessions.get(session);
        if (h == null) {
            h = new History(session);
            h.prior = priorOf(kind);
            sessions.put(session, h);
        } else if (h.inFlight == 0 && h.lastEndNanos >= 0) {
            long returned = h.arrivedNanos >= 0 ? h.arrivedNanos : nowNanos;
            pauseEnded(h, Math.max(1, returned - h.lastEndNanos));
        }
        h.arrivedNanos = -1;
        h.inFlight++;
    }

    /**
     * A step of the session reached the router: its pause ended now, however long the step then waits for admission
     * (a pause learned up to the admission would count the router's own queue as the agent's tool time).
     */
    public void arrived(String session, long nowNanos) {
        History h = sessions.get(session);
        if (h == null || h.inFlight > 0 || h.lastEndNanos < 0 || h.arrivedNanos >= 0) {
            return;
        }
        h.arrivedNanos = nowNanos;
        if (h.deadline != null) {
            pausedUntil.remove(h.deadline);
            h.deadline = null;
        }
    }

    /** The paused sessions whose pauses have outlasted their own 99th percentile by {@code nowNanos} have ended. */
    public void settleEnds(long nowNanos) {
        settleEnds(nowNanos, (session, steps) -> false);
    }

    /** Whether another router has served a step of the session since its {@code steps}-th (the cluster's fact says so). */
    interface WentOn {
        boolean since(String session, long steps);
    }

    /**
     * As {@link #settleEnds(long)}, but a session that went on through another router (its next step reached a peer:
     * {@code wentOn}) has not ended: its pause's outcome is that peer's to count, as a return.
     */
    void settleEnds(long nowNanos, WentOn wentOn) {
        while (!pausedUntil.isEmpty() && pausedUntil.firstKey().atNanos() <= nowNanos) {
            Map.Entry<PauseDeadline, History> e = pausedUntil.pollFirstEntry();
            History h = e.getValue();
            h.deadline = null;
            if (wentOn.since(h.session, h.steps)) {
                continue;
            }
            h.countedEnded = true;
            outcome(true);
        }
    }

    /** Its ended steps as this router knows them (0 for a session it does not know). */
    long steps(String session) {
        History h = sessions.get(session);
        return h == null ? 0 : h.steps;
    }

    /**
     * The cluster knows the session further than this router ({@code fact}: another router served its later steps):
     * its pause history and its last end become the fact's, so that the pause now ending is measured from the end of
     * its last step wherever that ran. Only while this router has none of its steps in flight (its own count of
     * them is its own); {@code lastEndNanos} on this router's clock.
     */
    void adopt(String session, String kind, SessionFact fact, long lastEndNanos) {
        History h = sessions.get(session);
        if (h == null) {
            h = new History(session);
            h.prior = priorOf(kind);
            sessions.put(session, h);
        } else if (h.inFlight > 0 || !fact.aheadOf(h.steps)) {
            return;
        }
        if (h.deadline != null) {
            pausedUntil.remove(h.deadline);
            h.deadline = null;
        }
        h.countedEnded = false;
        h.steps = fact.steps();
        h.lastEndNanos = lastEndNanos;
        h.arrivedNanos = -1;
        h.pauses = fact.pauses();
        h.mean = fact.lnPauseMean();
        h.m2 = fact.lnPauseM2();
        h.lastPauseNanos = fact.lastPauseNanos();
    }

    /** The session's pause history, for its {@link SessionFact}; the caller adds the rest. */
    SessionFact fact(String session, EpochClock epoch) {
        History h = sessions.get(session);
        if (h == null || h.lastEndNanos < 0) {
            return null;
        }
        return new SessionFact(session, h.steps, "", 0, epoch.toEpoch(h.lastEndNanos), h.pauses, h.mean, h.m2, h.lastPauseNanos, 0, 0);
    }

    private void outcome(boolean ended) {
        ends = ends * END_DECAY + (ended ? 1 : 0);
        returns = returns * END_DECAY + (ended ? 0 : 1);
    }

    /** A step of the session ended; with nothing else in flight, its pause starts now. */
    public void stepEnded(String session, long nowNanos) {
        History h = sessions.get(session);
        if (h != null) {
            h.steps++;
        }
        if (h != null && --h.inFlight <= 0) {
            h.inFlight = 0;
            h.lastEndNanos = nowNanos;
            if (h.deadline != null) {
                pausedUntil.remove(h.deadline);
            }
            LogNormal d = estimate(session);
            double horizon = Math.exp(d.mu() + END_QUANTILE_Z * d.sigma());
            long at = nowNanos + (long) Math.min(MAX_END_HORIZON_NANOS, horizon);
            h.deadline = new PauseDeadline(at, deadlineSeq++);
            pausedUntil.put(h.deadline, h);
        }
    }

    private Prior priorOf(String kind) {
        if (kind == null) {
            return pool;
        }
        Prior p = kinds.get(kind);
        if (p == null) {
            if (kinds.size() >= MAX_KINDS) {
                return pool;
            }
            p = new Prior(pool.mean, pool.var);
            kinds.put(kind, p);
        }
        return p;
    }

    private void pauseEnded(History h, long pauseNanos) {
        if (h.deadline != null) {
            pausedUntil.remove(h.deadline);
            h.deadline = null;
        }
        if (h.countedEnded) {
            // Taken for its end, it came back after all: the outcome is a return.
            ends = Math.max(0, ends - 1);
            h.countedEnded = false;
        }
        outcome(false);
        double x = Math.log(pauseNanos);
        h.lastPauseNanos = pauseNanos;
        h.pauses++;
        double d = x - h.mean;
        h.mean += d / h.pauses;
        h.m2 += d * (x - h.mean);
        pool.learn(x);
        if (h.prior != pool) {
            h.prior.learn(x);
        }
    }

    /** Whether the session has sent a step before (and is remembered): a session in progress. */
    public boolean knows(String session) {
        return sessions.containsKey(session);
    }

    /** The pause before the session's latest step, or -1 when it had none. */
    public long lastPauseNanos(String session) {
        History h = sessions.get(session);
        return h == null ? -1 : h.lastPauseNanos;
    }

    /** The session's pause distribution: its own pauses and the pool's, weighed by their numbers. */
    LogNormal estimate(String session) {
        History h = sessions.get(session);
        int n = h == null ? 0 : h.pauses;
        Prior prior = h == null ? pool : h.prior;
        double k = SHRINK_WEIGHT;
        if (n == 0) {
            return new LogNormal(prior.mean, Math.max(MIN_SIGMA, Math.sqrt(prior.var)));
        }
        double mu = (k * prior.mean + n * h.mean) / (k + n);
        double spread = h.mean - prior.mean;
        double var = (k * prior.var + h.m2 + k * n / (k + n) * spread * spread) / (k + n);
        return new LogNormal(mu, Math.max(MIN_SIGMA, Math.sqrt(var)));
    }

    /** The chance that a pause is a session's last (it never sends another step). */
    double endChance() {
        return Math.max(0.005, Math.min(0.9, ends / (ends + returns)));
    }

    /**
     * The chance that the session, paused for {@code pausedNanos} so far, sends its next step within {@code horizonNanos}:
     * it has not ended, and its pause ends inside the horizon, given that it has lasted this long.
     */
    public double returnChance(String session, long pausedNanos, long horizonNanos) {
        LogNormal d = estimate(session);
        double q = endChance();
        double alive = d.survival(pausedNanos);
        double within = alive - d.survival((double) pausedNanos + horizonNanos);
        double denominator = q + (1 - q) * alive;
        return denominator <= 0 ? 0 : (1 - q) * within / denominator;
    }

    /** The median of every session's pauses, as the pool-wide prior has learned them. */
    public double poolMedianPauseNanos() {
        return Math.exp(pool.mean);
    }

    /** The pool-wide estimate's weight (the pauses it rests on, decayed) and mean of ln(pause), for the peers. */
    double poolWeight() {
        return pool.weight;
    }

    double poolLnMean() {
        return pool.mean;
    }

    /** The median of the session's pauses, as estimated. */
    public double medianPauseNanos(String session) {
        return estimate(session).median();
    }
}
