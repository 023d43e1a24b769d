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
    private final LinkedHashMap<String, Deque<StepRecord>> sessions = new LinkedHashMap<>(1024);
    /** When each session's first step arrived, and how many steps it has recorded (its deque keeps the latest only). */
    private final HashMap<String, long[]> arrivals = new HashMap<>(1024);

    /**
     * A recent session at a glance, for the session list in arrival order.
     *
     * @param firstMillis when its first step arrived
     * @param lastMillis  when its latest step arrived
     * @param steps       steps recorded, including those the log no longer keeps
     * @param spills      its kept steps that were moved off their home replica
     */
    public record Summary(String sessionKey, String model, long firstMillis, long lastMillis, long steps, String lastReplica,
                          String lastDecision, List<StepRecord> spills) {
    }

    public SessionLog(int maxSessions, int stepsPerSession) {
        this.maxSessions = maxSessions;
        this.stepsPerSession = stepsPerSession;
    }

    /** Records a step where it arrived: concurrent steps may end in another order than they came. */
    public synchronized void record(StepRecord step) {
        Deque<StepRecord> steps = sessions.remove(step.sessionKey());
        if (steps == null) {
            steps = new ArrayDeque<>();
        }
        sessions.put(step.sessionKey(), steps);
        long[] arrival = arrivals.computeIfAbsent(step.sessionKey(), k -> new long[] {step.epochMillis(), 0});
        arrival[0] = Math.min(arrival[0], step.epochMillis());
        arrival[1]++;
        if (sessions.size() > maxSessions) {
            Iterator<String> eldest = sessions.keySet().iterator();
            arrivals.remove(eldest.next());
            eldest.remove();
        }
        Deque<StepRecord> later = new ArrayDeque<>();
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
        if (!hash.startsWith("h-")) {
            return Optional.empty();
        }
        for (String key : sessions.keySet()) {
            if (SessionKey.displayHash(key).equals(hash)) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }

    public synchronized Optional<List<StepRecord>> steps(String sessionKey) {
        Deque<StepRecord> steps = sessions.get(sessionKey);
        return steps == null ? Optional.empty() : Optional.of(new ArrayList<>(steps));
    }

    /** The {@code limit} sessions that arrived last, in arrival order (the earliest first). */
    public synchronized List<Summary> arrivals(int limit) {
        List<Summary> all = new ArrayList<>(sessions.size());
        sessions.forEach((key, steps) -> {
            long[] arrival = arrivals.get(key);
            StepRecord last = steps.peekLast();
            List<StepRecord> spills = steps.stream().filter(st -> st.movedFrom() != null).toList();
            all.add(new Summary(key, last.model(), arrival[0], last.epochMillis(), arrival[1], last.replica(), last.decision(), spills));
        });
        all.sort(Comparator.comparingLong(Summary::firstMillis).thenComparing(Summary::sessionKey));
        return all.subList(Math.max(0, all.size() - limit), all.size());
    }

    /** Most recently active session keys first. */
    public synchronized List<String> recentSessions(int limit) {
        List<String> keys = new ArrayList<>(sessions.keySet());
        List<String> out = new ArrayList<>(Math.min(limit, keys.size()));
        for (int i = keys.size() - 1; i >= 0 && out.size() < limit; i--) {
            out.add(keys.get(i));
        }
        return out;
    }
}
