package io.lmwarden.router.stats;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The recent steps of recent sessions, for {@code GET /api/sessions/{key}} and the session view.
 * Bounded twice: steps per session and sessions overall (least recently active goes first).
 */
public final class SessionLog {

    private final int maxSessions;
    private final int stepsPerSession;
    private final LinkedHashMap<String, Deque<StepRecord>> sessions;

    public SessionLog(int maxSessions, int stepsPerSession) {
        this.maxSessions = maxSessions;
        this.stepsPerSession = stepsPerSession;
        this.sessions = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Deque<StepRecord>> eldest) {
                return size() > SessionLog.this.maxSessions;
            }
        };
    }

    public synchronized void record(StepRecord step) {
        Deque<StepRecord> steps = sessions.computeIfAbsent(step.sessionKey(), k -> new ArrayDeque<>());
        steps.addLast(step);
        while (steps.size() > stepsPerSession) {
            steps.removeFirst();
        }
    }

    public synchronized Optional<List<StepRecord>> steps(String sessionKey) {
        Deque<StepRecord> steps = sessions.get(sessionKey);
        return steps == null ? Optional.empty() : Optional.of(new ArrayList<>(steps));
    }

    /** Sessions with a step in the window, and their latest prompt sizes: {count, average tokens}. */
    public synchronized long[] activeSessions(long nowMillis, long windowMillis) {
        List<Deque<StepRecord>> all = new ArrayList<>(sessions.values());
        long count = 0;
        long tokens = 0;
        for (int i = all.size() - 1; i >= 0; i--) {
            StepRecord last = all.get(i).peekLast();
            if (last == null || nowMillis - last.epochMillis() > windowMillis) {
                break;
            }
            count++;
            tokens += last.promptTokens();
        }
        return new long[] {count, count == 0 ? 0 : tokens / count};
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
