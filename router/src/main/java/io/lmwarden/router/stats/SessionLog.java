package io.lmwarden.router.stats;

import io.lmwarden.router.session.SessionKey;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The recent steps of recent sessions, for {@code GET /api/sessions/{key}} and the session view, each
 * session's steps in arrival order. Bounded twice: steps per session and sessions overall (the least
 * recently active goes first). Reading a session does not make it recent.
 */
public final class SessionLog {

    private final int maxSessions;
    private final int stepsPerSession;
    /** In order of last activity: a session is moved to the end when it records a step, never when it is read. */
    private final LinkedHashMap<String, Entry> sessions = new LinkedHashMap<>(1024);
    /** Raw keys by their display hash, so that a hash from the UI finds its session without hashing every key. */
    private final HashMap<String, String> byHash = new HashMap<>(1024);

    /** One session's kept steps, when its first step arrived and how many it has recorded (its deque keeps the latest only). */
    private static final class Entry {
        final Deque<SessionStep> steps = new ArrayDeque<>();
        final String hash;
        long firstMillis;
        long count;

        Entry(String hash, long firstMillis) {
            this.hash = hash;
            this.firstMillis = firstMillis;
        }
    }

    /** What {@link #arrivals} copies under the lock; the summaries are built from it outside. */
    private record Copy(String key, long firstMillis, long count, SessionStep[] steps) {
    }

    /**
     * A recent session at a glance, for the session list in arrival order.
     *
     * @param firstMillis when its first step arrived
     * @param lastMillis  when its latest step arrived
     * @param steps       steps recorded, including those the log no longer keeps
     * @param spills      its kept steps that were moved off their home replica
     */
    public record Summary(String sessionKey, String model, long firstMillis, long lastMillis, long steps, String lastReplica,
                          String lastDecision, List<SessionStep> spills) {
    }

    /** The bound: 2,000 × 50 steps of ~400 B each is at most ~40 MB, whatever clients send (keys are capped). */
    public static final int SESSIONS_LOGGED = 2_000;
    public static final int STEPS_LOGGED_PER_SESSION = 50;

    public SessionLog(int maxSessions, int stepsPerSession) {
        this.maxSessions = maxSessions;
        this.stepsPerSession = stepsPerSession;
    }

    /** Records a step where it arrived: concurrent steps may end in another order than they came. */
    public synchronized void record(SessionStep step) {
        String key = step.sessionKey();
        Entry e = sessions.remove(key);
        if (e == null) {
            e = new Entry(SessionKey.displayHash(key), step.epochMillis());
            byHash.put(e.hash, key);
        }
        sessions.put(key, e);
        e.firstMillis = Math.min(e.firstMillis, step.epochMillis());
        e.count++;
        if (sessions.size() > maxSessions) {
            Iterator<Map.Entry<String, Entry>> eldest = sessions.entrySet().iterator();
            Map.Entry<String, Entry> gone = eldest.next();
            byHash.remove(gone.getValue().hash, gone.getKey());
            eldest.remove();
        }
        Deque<SessionStep> steps = e.steps;
        Deque<SessionStep> later = new ArrayDeque<>();
        while (!steps.isEmpty() && steps.peekLast().epochMillis() > step.epochMillis()) {
            later.addFirst(steps.removeLast());
        }
        steps.addLast(step);
        steps.addAll(later);
        while (steps.size() > stepsPerSession) {
            steps.removeFirst();
        }
    }

    /** The raw key of a recent session by its {@link SessionKey#displayHash}, if one is that. */
    public synchronized Optional<String> keyForHash(String hash) {
        return Optional.ofNullable(byHash.get(hash));
    }

    public synchronized Optional<List<SessionStep>> steps(String sessionKey) {
        Entry e = sessions.get(sessionKey);
        return e == null ? Optional.empty() : Optional.of(new ArrayList<>(e.steps));
    }

    /**
     * The {@code limit} sessions that arrived last, in arrival order (the earliest first). Only the copy is made
     * under the lock that every ending request takes; the summaries, filtering and sorting happen outside it.
     */
    public List<Summary> arrivals(int limit) {
        List<Copy> copies;
        synchronized (this) {
            copies = new ArrayList<>(sessions.size());
            sessions.forEach((key, e) -> copies.add(new Copy(key, e.firstMillis, e.count, e.steps.toArray(new SessionStep[0]))));
        }
        copies.sort(Comparator.comparingLong(Copy::firstMillis).thenComparing(Copy::key));
        List<Summary> out = new ArrayList<>(Math.min(limit, copies.size()));
        for (Copy c : copies.subList(Math.max(0, copies.size() - limit), copies.size())) {
            SessionStep last = c.steps()[c.steps().length - 1];
            List<SessionStep> spills = new ArrayList<>();
            for (SessionStep st : c.steps()) {
                if (st.placed().movedFrom() != null) {
                    spills.add(st);
                }
            }
            out.add(new Summary(c.key(), last.model(), c.firstMillis(), last.epochMillis(), c.count(), last.placed().replica(), last.placed().decision(),
                    spills));
        }
        return out;
    }

    /** Most recently active session keys first. */
    public List<String> recentSessions(int limit) {
        List<String> keys;
        synchronized (this) {
            keys = new ArrayList<>(sessions.keySet());
        }
        List<String> out = new ArrayList<>(Math.min(limit, keys.size()));
        for (int i = keys.size() - 1; i >= 0 && out.size() < limit; i--) {
            out.add(keys.get(i));
        }
        return out;
    }
}
