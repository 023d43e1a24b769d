package io.lmwarden.router;

import io.lmwarden.router.cacheview.KvEventFollower;

import io.lmwarden.router.advisor.TierAdvisor;
import io.lmwarden.router.cluster.MemberLoad;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.AdmissionRules;
import io.lmwarden.router.pool.EngineMetricsScraper;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.stats.ReplicaHistory;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Every periodic job of the router, started here and stopped with its Vert.x (the scraper and discovery by
 * {@link #close}): discovery and the engine scraper, the idle-pin sweep, the load report to the peers, the
 * admission pump, the UI's history samples and the tier advisor's replay. Per-request timers (stream idle timeout, queue keep-alive,
 * body deadline) belong to their request's code.
 */
final class RouterTimers implements AutoCloseable {

    /** Clustered pins in use are rewritten on each sweep: well before they would expire, at least every 30 s. */
    static final long PIN_SWEEP_MAX_MS = 30_000;
    /** How often a router tells its peers its load (engine time; divided by the time scale): placement sees theirs at most this late. */
    static final long LOAD_REPORT_ENGINE_MS = 100;

    private final RouterParts parts;
    private final EngineMetricsScraper scraper;
    /** Stops the advisor's timer first: a replay handed to a worker pool that Vert.x is closing would be refused. */
    private final Runnable stopAdvisor;

    private RouterTimers(RouterParts parts, EngineMetricsScraper scraper, Runnable stopAdvisor) {
        this.parts = parts;
        this.scraper = scraper;
        this.stopAdvisor = stopAdvisor;
    }

    static RouterTimers start(Vertx vertx, HttpClient checks, RouterConfig config, RouterParts parts) {
        ReplicaPool pool = parts.pool;
        AdmissionController admission = parts.placing.admission();
        SessionHomes homes = parts.placing.homes();
        ReplicaHistory history = parts.watching.history();
        KvEventFollower kv = parts.cacheViews.follower();
        parts.discovery.start(found -> {
            pool.apply(found);
            kv.discovered(found);
        });
        vertx.setPeriodic(KvEventFollower.SYNC_MILLIS, id -> kv.sync());
        EngineMetricsScraper scraper = new EngineMetricsScraper(vertx, checks, pool, config.discovery().scrapeInterval(),
                config.discovery().healthTimeout());
        scraper.start();
        vertx.setPeriodic(pinSweepMillis(config.placement().sessionIdleTimeout()), id -> homes.expireIdle(System.nanoTime()));
        vertx.setPeriodic(loadReportPeriodMillis(config.simulation().timeScale()), id -> parts.cluster.publish(ownLoad(parts)));
        vertx.setPeriodic(pumpPeriodMillis(admission.rules()), id -> admission.pump());
        long advisorTimer = tierAdvisor(vertx, parts.advising, config.simulation().timeScale());
        history.sample(System.currentTimeMillis(), pool.all());
        vertx.setPeriodic(ReplicaHistory.SAMPLE_MILLIS, id -> history.sample(System.currentTimeMillis(), pool.all()));
        return new RouterTimers(parts, scraper, () -> vertx.cancelTimer(advisorTimer));
    }

    /** The tier advisor's replay runs on a worker: one pass over up to 2M keys is too long for the event loop. */
    private static long tierAdvisor(Vertx vertx, RouterParts.Advising advising, double timeScale) {
        return vertx.setPeriodic(TierAdvisor.periodMillis(timeScale), id -> vertx.executeBlocking(() -> {
            advising.advisor().refresh().ifPresent(advising.gauge()::update);
            return null;
        }, false));
    }

    static long pinSweepMillis(Duration sessionIdleTimeout) {
        return Math.max(1, Math.min(PIN_SWEEP_MAX_MS, sessionIdleTimeout.toMillis() / 4));
    }

    /** The load report period on the wall clock: as stale, in engine time, at every time scale (like the scrape). */
    static long loadReportPeriodMillis(double timeScale) {
        return Math.max(5, Math.round(LOAD_REPORT_ENGINE_MS / timeScale));
    }

    /** Often enough that pressure relief and queue timeouts are late by at most a twentieth of the pauses, timeouts and the wait bound. */
    static long pumpPeriodMillis(AdmissionRules s) {
        long shortest = Math.min(s.pausePriorNanos(), Math.min(Math.min(s.queueTimeoutNanos(), s.waitBoundNanos()), s.keepAliveNanos()));
        return Math.max(5, Math.min(250, shortest / 20 / 1_000_000));
    }

    /** This router's own share of the load, for its peers: its in-flight requests and its residents' KV blocks per replica. */
    private static MemberLoad ownLoad(RouterParts parts) {
        Map<String, Integer> inFlight = new HashMap<>();
        parts.pool.all().forEach(r -> inFlight.put(r.id(), r.inFlight()));
        Map<String, Long> blocks = new HashMap<>();
        parts.placing.admission().residentLoads().forEach((replica, load) -> blocks.put(replica, load.usedBlocks()));
        AdmissionController admission = parts.placing.admission();
        return new MemberLoad(inFlight, blocks, parts.pins().size(), 0, admission.residents(), admission.evidence());
    }

    @Override
    public void close() {
        stopAdvisor.run();
        scraper.close();
        parts.discovery.close();
    }
}
