package io.lmwarden.router.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.diagnostics.CapacityAdvice;
import io.lmwarden.router.diagnostics.LiveWorkingSets;
import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.cluster.RouterCluster;
import io.lmwarden.router.placement.SessionPins;
import io.lmwarden.router.placement.PolicyFactory;
import io.lmwarden.router.placement.PolicyHolder;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.ResidencyTable;
import io.lmwarden.router.pool.EngineMetrics;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.proxy.ApiErrors;
import io.lmwarden.router.proxy.InFlightTracker;
import io.lmwarden.router.stats.RequestAccounting;
import io.lmwarden.router.stats.ReplicaHistory;
import io.lmwarden.router.stats.RouterMetrics;
import io.lmwarden.router.stats.SessionLog;
import io.lmwarden.router.stats.StepRecord;
import io.lmwarden.router.session.SessionKey;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;

/** The router's own endpoints: health, readiness, metrics, replicas, sessions and the policy switch. */
public final class AdminApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ARRIVALS_LISTED = 50;

    private final ReplicaPool pool;
    private final LongFunction<PoolSnapshot> snapshot;
    private final PolicyHolder policy;
    private final AdmissionController admission;
    private final SessionPins affinity;
    private final SessionLog sessions;
    private final RequestAccounting accounting;
    private final RouterMetrics metrics;
    private final InFlightTracker inFlight;
    private final AdminAuth auth;
    private final String discovery;
    private final TokenRates tokenRates;
    private final LiveWorkingSets workingSets;
    private final Instant startedAt = Instant.now();
    private final RouterCluster cluster;
    private final ReplicaHistory history;

    public AdminApi(ReplicaPool pool, LongFunction<PoolSnapshot> snapshot, PolicyHolder policy, AdmissionController admission,
                    SessionPins affinity,
                    SessionLog sessions, RequestAccounting accounting, RouterMetrics metrics, InFlightTracker inFlight,
                    AdminAuth auth, String discovery, TokenRates tokenRates, LiveWorkingSets workingSets,
                    RouterCluster cluster, ReplicaHistory history) {
        this.cluster = cluster;
        this.history = history;
        this.pool = pool;
        this.snapshot = snapshot;
        this.policy = policy;
        this.admission = admission;
        this.affinity = affinity;
        this.sessions = sessions;
        this.accounting = accounting;
        this.metrics = metrics;
        this.inFlight = inFlight;
        this.auth = auth;
        this.discovery = discovery;
        this.tokenRates = tokenRates;
        this.workingSets = workingSets;
    }

    /** Probes and Prometheus: open on every port, since kubelet and scrapers carry no token. GET and HEAD alike. */
    public void mountProbes(Router router) {
        router.route("/healthz").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> json(rc, 200, Map.of("status", "ok")));
        router.route("/readyz").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::readyz);
        router.route("/metrics").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> rc.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
    }

    /** The admin API under {@code /api}: behind the token when one is set. */
    public void mountAdmin(Router router) {
        router.route("/api/*").handler(auth::require);
        router.route("/api/replicas").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::replicas);
        router.route("/api/stats").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> json(rc, 200, stats()));
        router.route("/api/sessions").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::sessions);
        router.route("/api/sessions/:key").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::session);
        router.route("/api/policy").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> json(rc, 200, policyView()));
        router.put("/api/policy").handler(this::putPolicy);
    }

    public void mount(Router router) {
        mountProbes(router);
        mountAdmin(router);
    }

    /** Raw keys may be personal data (an e-mail in {@code user}): only an admin sees them, everyone else their hashes. */
    private List<String> shown(RoutingContext rc, List<String> keys) {
        return auth.isAdmin(rc) ? keys : keys.stream().map(SessionKey::shown).toList();
    }

    /** A raw key as this caller may see it: itself for an admin, its hash for everyone else. */
    private UnaryOperator<String> shownKey(RoutingContext rc) {
        return auth.isAdmin(rc) ? UnaryOperator.identity() : SessionKey::shown;
    }

    /** Recent sessions: keys most recently active first, and {@code arrivals}, the latest 50 in arrival order. */
    private void sessions(RoutingContext rc) {
        UnaryOperator<String> shown = shownKey(rc);
        List<Map<String, Object>> arrivals = new ArrayList<>();
        for (SessionLog.Summary s : sessions.arrivals(ARRIVALS_LISTED)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", shown.apply(s.sessionKey()));
            m.put("hash", SessionKey.displayHash(s.sessionKey()));
            m.put("model", s.model());
            m.put("firstMillis", s.firstMillis());
            m.put("lastMillis", s.lastMillis());
            m.put("steps", s.steps());
            Optional<String> pinned = affinity.peek(pool.modelKey(s.model()), s.sessionKey());
            m.put("home", pinned.orElse(s.lastReplica()));
            m.put("sticky", pinned.isPresent());
            m.put("lastDecision", s.lastDecision());
            m.put("spills", s.spills().stream().map(st -> Map.of("from", st.movedFrom(), "to", st.replica(),
                    "epochMillis", st.epochMillis())).toList());
            arrivals.add(m);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sessions", shown(rc, sessions.recentSessions(100)));
        body.put("arrivals", arrivals);
        json(rc, 200, body);
    }

    private void replicas(RoutingContext rc) {
        String asked = rc.queryParams().get("window");
        long windowSeconds = ReplicaHistory.KEPT_MILLIS / 1000;
        if (asked != null) {
            try {
                windowSeconds = Long.parseLong(asked.trim());
            } catch (NumberFormatException e) {
                windowSeconds = -1;
            }
            if (windowSeconds < 1 || windowSeconds > ReplicaHistory.KEPT_MILLIS / 1000) {
                rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .end(ApiErrors.body(null, 400, "window must be a whole number of seconds from 1 to "
                                + ReplicaHistory.KEPT_MILLIS / 1000 + ", got '" + asked + "'"));
                return;
            }
        }
        json(rc, 200, replicas(windowSeconds * 1000, shownKey(rc)));
    }

    private void readyz(RoutingContext rc) {
        int ready = snapshot.apply(System.nanoTime()).ready().size();
        json(rc, ready > 0 ? 200 : 503, Map.of("ready", ready > 0, "readyReplicas", ready));
    }

    public Map<String, Object> policyView() {
        PolicyHolder.Current c = policy.current();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", c.policy().name());
        m.put("affinity", c.policy().pinsSessions());
        m.put("spillThreshold", c.spillThreshold().toString());
        m.put("spillThresholdValue", c.policy().spillThreshold().isPresent() ? Integer.valueOf(c.policy().spillThreshold().getAsInt()) : null);
        m.put("policies", PolicyFactory.NAMES);
        m.put("admission", admission.enabled());
        return m;
    }

    /** The replicas card: the routing settings, and per replica its figures and its activity of the last {@code windowMillis}. */
    public Map<String, Object> replicas(long windowMillis, UnaryOperator<String> shownKey) {
        PoolSnapshot snap = snapshot.apply(System.nanoTime());
        ReplicaActivity activity = new ReplicaActivity(sessions, affinity, pool::modelKey, history, metrics.spillPairs(), System.currentTimeMillis(),
                windowMillis, shownKey);
        Map<String, Object> m = policyView();
        m.put("stickyPct", round(accounting.stickyPercent()));
        m.put("inFlight", inFlight.active());
        m.put("affinityEntries", affinity.size());
        m.put("discovery", discovery);
        m.put("cluster", cluster.view());
        m.put("startedAt", startedAt.toString());
        m.put("countersSince", "router start");
        List<Map<String, Object>> rows = new ArrayList<>();
        Map<String, ResidencyTable.ReplicaLoad> resident = admission.residentLoads();
        for (ReplicaView r : snap.replicas()) {
            ReplicaState s = pool.get(r.id()).orElse(null);
            // A replica that is not ready has no current figures: its last scrape would pass for a live one.
            EngineMetrics e = r.ready() ? r.metrics() : null;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", r.id());
            row.put("url", r.url());
            row.put("endpoint", r.endpointId());
            row.put("rank", r.rank() < 0 ? null : r.rank());
            row.put("ready", r.ready());
            row.put("inFlight", r.inFlight());
            row.put("stickySessions", r.stickySessions());
            row.put("requests", s == null ? 0 : s.requests());
            row.put("spilledIn", s == null ? 0 : s.spilledIn());
            row.put("clientPinned", s == null ? 0 : s.clientPinned());
            row.put("failures", s == null ? 0 : s.failures());
            row.put("metricsFresh", r.metricsFresh());
            row.put("metricsAgeMs", e == null ? null : (snap.takenAtNanos() - e.scrapedAtNanos()) / 1_000_000);
            row.put("running", e == null ? null : e.running());
            row.put("waiting", e == null ? null : e.waiting());
            row.put("kvCacheUsage", e == null ? null : e.kvCacheUsage());
            row.put("prefixHitRate", e == null ? null : round(e.prefixHitRate()));
            row.put("prefixCacheQueries", e == null ? null : e.prefixCacheQueries());
            row.put("prefixCacheHits", e == null ? null : e.prefixCacheHits());
            row.put("promptTokens", e == null ? null : e.promptTokens());
            row.put("generationTokens", e == null ? null : e.generationTokens());
            row.put("kvCapacityTokens", e == null ? null : e.kvCapacityTokens());
            row.put("models", e == null ? List.of() : e.models());
            // All the names its endpoint answers to (GET /v1/models); the metrics' label (the first name) until they are read.
            row.put("servedModels", r.servedModels().known() ? r.servedModels().names()
                    : r.metrics() == null ? List.of() : List.copyOf(r.metrics().models()));
            row.put("servedModelsFrom", r.servedModels().known() ? "/v1/models" : r.metrics() == null ? null : "metrics");
            ResidencyTable.ReplicaLoad load = resident.get(r.id());
            row.put("residentSessions", load == null ? 0 : load.residentSessions());
            row.put("workingSetTokens", load == null ? 0 : load.usedBlocks() * io.lmwarden.router.placement.PrefixIndexes.TOKENS_PER_BLOCK);
            row.put("kvBudgetTokens", admission.budgetTokens(r));
            activity.addTo(r.id(), row);
            rows.add(row);
        }
        m.put("replicas", rows);
        m.put("queue", queueView());
        m.put("capacity", capacity(snap));
        return m;
    }

    /** The rule of thumb: the live working sets' distinct context against the pool's KV capacity, and what admission does about it. */
    private CapacityAdvice capacity(PoolSnapshot snap) {
        long pool = snap.ready().stream().filter(r -> r.metrics() != null).mapToLong(r -> r.metrics().kvCapacityTokens()).sum();
        int resident = admission.residentLoads().values().stream().mapToInt(ResidencyTable.ReplicaLoad::residentSessions).sum();
        return CapacityAdvice.of(workingSets.demand(System.currentTimeMillis()), pool,
                new CapacityAdvice.AdmissionState(admission.enabled(), resident, admission.queueLength(), admission.oldestWaitSeconds()));
    }

    private Map<String, Object> queueView() {
        var s = admission.settings();
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("admission", s.enabled());
        q.put("length", admission.queueLength());
        q.put("oldestWaitSeconds", round(admission.oldestWaitSeconds()));
        q.put("max", s.queueMax());
        q.put("kvBudget", s.kvBudget());
        q.putAll(admission.totals());
        return q;
    }

    public Map<String, Object> stats() {
        long now = System.currentTimeMillis();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("windowSeconds", 3600);
        m.put("bucketSeconds", 60);
        m.put("now", tokenRates.now(now, 10));
        List<Map<String, Object>> series = tokenRates.lastHour(now);
        long cached = 0;
        long computed = 0;
        long output = 0;
        for (Map<String, Object> b : series) {
            cached += (Long) b.get("cachedTokens");
            computed += (Long) b.get("computedTokens");
            output += (Long) b.get("outputTokens");
        }
        Map<String, Object> hour = new LinkedHashMap<>();
        hour.put("promptTokens", cached + computed);
        hour.put("cachedTokens", cached);
        hour.put("computedTokens", computed);
        hour.put("outputTokens", output);
        hour.put("cachedShare", cached + computed == 0 ? null : round((double) cached / (cached + computed)));
        m.put("lastHour", hour);
        m.put("series", series);
        m.put("recent", tokenRates.recent(now));
        Map<String, Object> diag = new LinkedHashMap<>();
        diag.put("requests", accounting.endedRequests());
        diag.put("prefixBreaks", accounting.prefixBreaks());
        diag.put("cacheMisses", accounting.cacheMisses());
        diag.put("queueAteGain", accounting.queueAteGain());
        m.put("diagnostics", diag);
        return m;
    }

    private void session(RoutingContext rc) {
        String asked = rc.pathParam("key");
        boolean admin = auth.isAdmin(rc);
        // A hash names a session for anyone who may read the API; a raw key is looked up as given (the caller
        // knows it), but the answer shows it only to an admin.
        Optional<String> found = sessions.keyForHash(asked);
        if (found.isEmpty()) {
            found = Optional.of(asked);
        }
        Optional<List<StepRecord>> steps = found.flatMap(sessions::steps);
        if (steps.isEmpty()) {
            rc.response().setStatusCode(404).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(null, 404, "no recent session '" + SessionKey.displayHash(asked).substring(0, 8)
                            + "…' (ask by the hash GET /api/sessions lists; the router keeps the most recent sessions only)"));
            return;
        }
        String key = found.get();
        List<StepRecord> list = steps.get();
        String model = list.get(list.size() - 1).model();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", admin ? key : SessionKey.shown(key));
        m.put("hash", SessionKey.displayHash(key));
        m.put("source", list.get(list.size() - 1).sessionKeySource());
        m.put("model", model);
        m.put("replica", affinity.peek(pool.modelKey(model), key).orElse(list.get(list.size() - 1).replica()));
        m.put("prefixBreaks", list.stream().filter(st -> st.prefixBreak() != null).count());
        m.put("sideRequests", list.stream().filter(StepRecord::sideRequest).count());
        m.put("cacheMisses", list.stream().filter(StepRecord::cacheMiss).count());
        m.put("queueAteGain", list.stream().filter(StepRecord::queueAteGain).count());
        m.put("steps", admin ? list : list.stream().map(st -> st.withSessionKey(SessionKey.shown(st.sessionKey()))).toList());
        json(rc, 200, m);
    }

    private void putPolicy(RoutingContext rc) {
        try {
            JsonNode body = rc.body() == null || rc.body().buffer() == null ? null : JSON.readTree(rc.body().buffer().getBytes());
            if (body == null || !body.isObject() || !body.hasNonNull("policy")) {
                throw new IllegalArgumentException("send a JSON object like {\"policy\":\"affinity\",\"spillThreshold\":\"auto\"}; "
                        + "policies: " + String.join(", ", PolicyFactory.NAMES));
            }
            SpillThreshold spill = body.hasNonNull("spillThreshold")
                    ? SpillThreshold.parse(body.get("spillThreshold").asText())
                    : policy.current().spillThreshold();
            if (body.has("admission")) {
                if (!body.get("admission").isBoolean()) {
                    throw new IllegalArgumentException("admission must be true or false, got " + body.get("admission"));
                }
                admission.setEnabled(body.get("admission").asBoolean());
            }
            policy.switchTo(body.get("policy").asText(), spill);
            json(rc, 200, policyView());
        } catch (IOException e) {
            rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(null, 400, "body is not valid JSON: " + e.getMessage()));
        } catch (IllegalArgumentException e) {
            rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(null, 400, e.getMessage()));
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    static void json(RoutingContext rc, int status, Object value) {
        try {
            rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(JSON.writeValueAsString(value));
        } catch (IOException e) {
            rc.fail(e);
        }
    }
}
