package io.lmwarden.router.api;

import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.stats.ReplicaHistory;
import io.lmwarden.router.stats.SessionLog;
import io.lmwarden.router.stats.SessionStep;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What the UI shows under each replica: the recent sessions whose home it is, the steps that spilled
 * off it and where they went, and its requests and engine prefix hits over the last minutes (the
 * engine's own counters run since it started). One instance per {@code GET /api/replicas}: it reads
 * the session log once for all replicas.
 */
final class ReplicaActivity {

    /** Sessions and spilled steps listed per replica; the counts cover all of them. */
    static final int LISTED = 20;

    private final ReplicaHistory history;
    private final Map<String, Map<String, Long>> spillPairs;
    private final long nowMillis;
    private final long windowMillis;
    private final UnaryOperator<String> shownKey;
    private final Map<String, List<SessionLog.Summary>> sessionsByHome = new HashMap<>();
    private final Map<String, Boolean> sticky = new HashMap<>();
    private final Map<String, List<SessionStep>> spilledOff = new HashMap<>();

    /**
     * @param modelKey the key a model name's sessions are pinned under (aliases share one)
     * @param shownKey a raw key as this caller may see it: itself for an admin, else its hash
     */
    ReplicaActivity(SessionLog sessions, SessionPins pins, UnaryOperator<String> modelKey, ReplicaHistory history,
                    Map<String, Map<String, Long>> spillPairs, long nowMillis, long windowMillis, UnaryOperator<String> shownKey) {
        this.history = history;
        this.spillPairs = spillPairs;
        this.nowMillis = nowMillis;
        this.windowMillis = windowMillis;
        this.shownKey = shownKey;
        List<SessionLog.Summary> arrivals = sessions.arrivals(Integer.MAX_VALUE);
        // Latest arrival first, appended (inserting each at the front was quadratic in the sessions listed).
        for (int i = arrivals.size() - 1; i >= 0; i--) {
            SessionLog.Summary s = arrivals.get(i);
            // Its home: the sticky entry when the affinity table keeps one, else where its latest step ran.
            String pinnedTo = pins.peek(modelKey.apply(s.model()), s.sessionKey()).orElse(null);
            String home = pinnedTo != null ? pinnedTo : s.lastReplica();
            sessionsByHome.computeIfAbsent(home, k -> new ArrayList<>()).add(s);
            sticky.put(s.sessionKey(), pinnedTo != null);
            for (SessionStep step : s.spills()) {
                spilledOff.computeIfAbsent(step.placed().movedFrom(), k -> new ArrayList<>()).add(step);
            }
        }
        spilledOff.values().forEach(list -> list.sort((a, b) -> Long.compare(b.epochMillis(), a.epochMillis())));
    }

    /** Adds the replica's activity to its row of {@code /api/replicas}. */
    void addTo(String replica, Map<String, Object> row) {
        List<SessionLog.Summary> homed = sessionsByHome.getOrDefault(replica, List.of());
        row.put("recentSessionCount", homed.size());
        row.put("recentSessions", homed.stream().limit(LISTED).map(s -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", shownKey.apply(s.sessionKey()));
            m.put("sticky", sticky.get(s.sessionKey()));
            m.put("steps", s.steps());
            m.put("lastMillis", s.lastMillis());
            return m;
        }).toList());

        Map<String, Long> to = spillPairs.getOrDefault(replica, Map.of());
        row.put("spilledOut", to.values().stream().mapToLong(Long::longValue).sum());
        List<Map<String, Object>> destinations = new ArrayList<>();
        to.forEach((dest, n) -> destinations.add(Map.of("to", dest, "count", n)));
        row.put("spilledTo", destinations);
        row.put("recentSpills", spilledOff.getOrDefault(replica, List.of()).stream().limit(LISTED).map(st -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("session", shownKey.apply(st.sessionKey()));
            m.put("to", st.placed().replica());
            m.put("epochMillis", st.epochMillis());
            return m;
        }).toList());

        ReplicaHistory.Window w = history.recent(replica, nowMillis, windowMillis);
        Map<String, Object> recent = new LinkedHashMap<>();
        recent.put("windowSeconds", windowMillis / 1000);
        recent.put("coveredSeconds", Math.round(w.seconds() * 10) / 10.0);
        recent.put("engineSinceMillis", w.engineSinceMillis());
        recent.put("requests", w.requests());
        recent.put("prefixCacheQueries", w.prefixQueries());
        recent.put("prefixCacheHits", w.prefixHits());
        recent.put("prefixHitRate", w.hitRate() == null ? null : Math.round(w.hitRate() * 10_000) / 10_000.0);
        // The host tier's hits of the same window: where the GPU misses that did not cost a prefill went.
        recent.put("hostTierQueries", w.hostQueries());
        recent.put("hostTierHits", w.hostHits());
        recent.put("hostTierHitRate", w.hostHitRate() == null ? null : Math.round(w.hostHitRate() * 10_000) / 10_000.0);
        row.put("recent", recent);
        row.put("series", history.buckets(replica, nowMillis).stream().map(b -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("t", b.fromMillis());
            m.put("requests", b.requests());
            m.put("prefixCacheQueries", b.prefixQueries());
            m.put("prefixCacheHits", b.prefixHits());
            return m;
        }).toList());
    }
}
