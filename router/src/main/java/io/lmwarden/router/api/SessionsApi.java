package io.lmwarden.router.api;

import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.stats.SessionLog;
import io.lmwarden.router.stats.SessionStep;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * {@code GET /api/sessions} and {@code /api/sessions/{hash or key}}. Raw keys may be personal data (an
 * e-mail in {@code user}): only an admin sees them, everyone else their hashes.
 */
public final class SessionsApi {

    private static final int ARRIVALS_LISTED = 50;

    private final SessionLog sessions;
    private final SessionPins pins;
    private final UnaryOperator<String> modelKey;
    private final AdminAuth auth;

    /** @param modelKey the key a model name is pinned under (its aliases share one; the pool knows them) */
    public SessionsApi(SessionLog sessions, SessionPins pins, UnaryOperator<String> modelKey, AdminAuth auth) {
        this.sessions = sessions;
        this.pins = pins;
        this.modelKey = modelKey;
        this.auth = auth;
    }

    /** Recent sessions: keys most recently active first, and {@code arrivals}, the latest 50 in arrival order. */
    public void list(RoutingContext rc) {
        UnaryOperator<String> shown = shownKey(auth, rc);
        List<Map<String, Object>> arrivals = new ArrayList<>();
        for (SessionLog.Summary s : sessions.arrivals(ARRIVALS_LISTED)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", shown.apply(s.sessionKey()));
            m.put("hash", SessionKey.displayHash(s.sessionKey()));
            m.put("model", s.model());
            m.put("firstMillis", s.firstMillis());
            m.put("lastMillis", s.lastMillis());
            m.put("steps", s.steps());
            Optional<String> pinned = pins.peek(modelKey.apply(s.model()), s.sessionKey());
            m.put("home", pinned.orElse(s.lastReplica()));
            m.put("sticky", pinned.isPresent());
            m.put("lastDecision", s.lastDecision());
            m.put("spills", s.spills().stream().map(st -> Map.of("from", st.placed().movedFrom(), "to", st.placed().replica(),
                    "epochMillis", st.epochMillis())).toList());
            arrivals.add(m);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sessions", sessions.recentSessions(100).stream().map(shown).toList());
        body.put("arrivals", arrivals);
        JsonReplies.send(rc, 200, body);
    }

    public void one(RoutingContext rc) {
        String asked = rc.pathParam("key");
        boolean admin = auth.isAdmin(rc);
        // A hash names a session for anyone who may read the API; a raw key is looked up as given (the caller
        // knows it), but the answer shows it only to an admin.
        Optional<String> found = sessions.keyForHash(asked);
        if (found.isEmpty()) {
            found = Optional.of(asked);
        }
        Optional<List<SessionStep>> steps = found.flatMap(sessions::steps);
        if (steps.isEmpty()) {
            JsonReplies.error(rc, 404, "no recent session '" + SessionKey.displayHash(asked).substring(0, 8)
                    + "…' (ask by the hash GET /api/sessions lists; the router keeps the most recent sessions only)");
            return;
        }
        String key = found.get();
        List<SessionStep> list = steps.get();
        String model = list.get(list.size() - 1).model();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", admin ? key : SessionKey.shown(key));
        m.put("hash", SessionKey.displayHash(key));
        m.put("source", list.get(list.size() - 1).sessionKeySource());
        m.put("model", model);
        m.put("replica", pins.peek(modelKey.apply(model), key).orElse(list.get(list.size() - 1).placed().replica()));
        m.put("prefixBreaks", list.stream().filter(st -> st.cache().prefixBreak() != null).count());
        m.put("sideRequests", list.stream().filter(SessionStep::sideRequest).count());
        m.put("cacheMisses", list.stream().filter(st -> st.cache().cacheMiss()).count());
        m.put("queueAteGain", list.stream().filter(st -> st.timing().queueAteGain()).count());
        m.put("steps", admin ? list : list.stream().map(st -> st.withSessionKey(SessionKey.shown(st.sessionKey()))).toList());
        JsonReplies.send(rc, 200, m);
    }

    /** A raw key as this caller may see it: itself for an admin, its hash for everyone else. */
    static UnaryOperator<String> shownKey(AdminAuth auth, RoutingContext rc) {
        return auth.isAdmin(rc) ? UnaryOperator.identity() : SessionKey::shown;
    }
}
