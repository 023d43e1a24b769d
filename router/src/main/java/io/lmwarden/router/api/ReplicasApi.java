package io.lmwarden.router.api;

import io.lmwarden.router.advisor.TierAdvisor;
import io.lmwarden.router.cluster.RouterCluster;
import io.lmwarden.router.diagnostics.CapacityAdvice;
import io.lmwarden.router.diagnostics.LiveWorkingSets;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.ResidencyTable;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.proxy.InFlightTracker;
import io.lmwarden.router.stats.ReplicaHistory;
import io.lmwarden.router.stats.RequestAccounting;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;

/**
 * {@code GET /api/replicas}: the routing settings, the cluster, the admission queue, the capacity advice, the host-tier
 * advice and a row per replica ({@link ReplicaRows}), its activity over the last {@code ?window=} seconds.
 */
public final class ReplicasApi {

    private final LongFunction<PoolSnapshot> snapshot;
    private final PolicyApi policy;
    private final ReplicaRows rows;
    private final AdmissionController admission;
    private final LiveWorkingSets workingSets;
    private final RequestAccounting accounting;
    private final InFlightTracker inFlight;
    private final RouterCluster cluster;
    private final String discovery;
    private final AdminAuth auth;
    private final TierAdvisor tierAdvisor;
    private final Instant startedAt = Instant.now();

    public ReplicasApi(LongFunction<PoolSnapshot> snapshot, PolicyApi policy, ReplicaRows rows, AdmissionController admission,
                LiveWorkingSets workingSets, RequestAccounting accounting, InFlightTracker inFlight, RouterCluster cluster,
                String discovery, AdminAuth auth, TierAdvisor tierAdvisor) {
        this.tierAdvisor = tierAdvisor;
        this.snapshot = snapshot;
        this.policy = policy;
        this.rows = rows;
        this.admission = admission;
        this.workingSets = workingSets;
        this.accounting = accounting;
        this.inFlight = inFlight;
        this.cluster = cluster;
        this.discovery = discovery;
        this.auth = auth;
    }

    public void get(RoutingContext rc) {
        String asked = rc.queryParams().get("window");
        long windowSeconds = ReplicaHistory.KEPT_MILLIS / 1000;
        if (asked != null) {
            try {
                windowSeconds = Long.parseLong(asked.trim());
            } catch (NumberFormatException e) {
                windowSeconds = -1;
            }
            if (windowSeconds < 1 || windowSeconds > ReplicaHistory.KEPT_MILLIS / 1000) {
                JsonReplies.error(rc, 400, "window must be a whole number of seconds from 1 to " + ReplicaHistory.KEPT_MILLIS / 1000
                        + ", got '" + asked + "'");
                return;
            }
        }
        JsonReplies.send(rc, 200, view(windowSeconds * 1000, SessionsApi.shownKey(auth, rc)));
    }

    Map<String, Object> view(long windowMillis, UnaryOperator<String> shownKey) {
        PoolSnapshot snap = snapshot.apply(System.nanoTime());
        Map<String, Object> m = policy.view();
        m.put("stickyPct", JsonReplies.round(accounting.stickyPercent()));
        m.put("inFlight", inFlight.active());
        m.put("affinityEntries", cluster.pins().size());
        m.put("discovery", discovery);
        m.put("cluster", cluster.view());
        m.put("startedAt", startedAt.toString());
        m.put("countersSince", "router start");
        m.put("replicas", rows.rows(snap, windowMillis, shownKey));
        m.put("queue", queue());
        m.put("capacity", capacity(snap));
        m.put("advisor", tierAdvisor.latest());
        return m;
    }

    /** The rule of thumb: the live working sets' distinct context against the pool's KV capacity, and what admission does about it. */
    private CapacityAdvice capacity(PoolSnapshot snap) {
        long pool = snap.ready().stream().filter(r -> r.metrics() != null).mapToLong(r -> r.metrics().kvCapacityTokens()).sum();
        int resident = admission.residentLoads().values().stream().mapToInt(ResidencyTable.ReplicaLoad::residentSessions).sum();
        return CapacityAdvice.of(workingSets.demand(System.currentTimeMillis()), pool,
                new CapacityAdvice.AdmissionState(admission.enabled(), resident, admission.queueLength(), admission.oldestWaitSeconds()));
    }

    private Map<String, Object> queue() {
        var s = admission.rules();
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("admission", s.enabled());
        q.put("length", admission.queueLength());
        q.put("oldestWaitSeconds", JsonReplies.round(admission.oldestWaitSeconds()));
        q.put("max", s.queueMax());
        q.put("kvBudget", s.kvBudget());
        q.putAll(admission.totals());
        return q;
    }
}
