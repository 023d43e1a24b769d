package io.lmwarden.router.pool;

import io.lmwarden.common.logging.LogFields;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Scrapes every endpoint's {@code /metrics} on a fixed interval (once per API server, however many engine
 * ranks it serves). A refused connection or a non-200 {@code /health} marks the replica unhealthy at once;
 * a silent one only under the conditions of {@link #blame}.
 */
public final class EngineMetricsScraper implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EngineMetricsScraper.class.getName());
    private static final int FAILURES_BEFORE_UNHEALTHY = 3;
    /**
     * How often an endpoint's {@code /v1/models} is asked when nothing suggests a change; a failed check (a restart),
     * a discovery change and a metrics label the list lacks have it asked at the next good check.
     */
    private static final long SERVED_MODELS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** An endpoint whose {@code /version} did not answer (neither an answer nor a 404) is asked again this much later. */
    private static final long ENGINE_VERSION_RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Vertx vertx;
    private final HttpClient client;
    private final ReplicaPool pool;
    private final Duration interval;
    private final Duration healthTimeout;
    private final Map<String, Integer> consecutiveFailures = new ConcurrentHashMap<>();
    /** When each endpoint's check in flight started (System.nanoTime). */
    private final Map<String, Long> inProgress = new ConcurrentHashMap<>();
    /** When each replica last answered /health with 200, to tell a frozen replica from a stalled router. */
    private final Map<String, Long> lastHealthyNanos = new ConcurrentHashMap<>();
    /** Endpoints whose {@code /v1/models} is being asked. */
    private final Set<String> askingServedModels = ConcurrentHashMap.newKeySet();
    /** Endpoints whose {@code /version} is being asked. */
    private final Set<String> askingEngineVersion = ConcurrentHashMap.newKeySet();
    /** Endpoints whose {@code /v1/models} did not answer usably last time: logged once until it does. */
    private final Set<String> servedModelsUnread = ConcurrentHashMap.newKeySet();
    private long timerId = -1;
    private volatile boolean closed;

    /** @param client the checks' own client, never the proxy's: a full proxy pool must not fail a health check */
    public EngineMetricsScraper(Vertx vertx, HttpClient client, ReplicaPool pool, Duration interval, Duration healthTimeout) {
        this.vertx = vertx;
        this.client = client;
        this.pool = pool;
        this.interval = interval;
        this.healthTimeout = healthTimeout;
    }

    public void start() {
        scrapeAll();
        timerId = vertx.setPeriodic(Math.max(10, interval.toMillis()), id -> scrapeAll());
    }

    /** Scrapes all replicas now; used at start and by tests that cannot wait for the timer. */
    public void scrapeAll() {
        if (closed) {
            return;
        }
        long now = System.nanoTime();
        // A check that outlived every timeout it has is lost (its request never completed): one lost
        // answer must not freeze a replica's figures, so a new check replaces it.
        long lostAfterNanos = TimeUnit.MILLISECONDS.toNanos(2 * (scrapeTimeoutMs() + healthTimeout.toMillis()));
        for (EndpointState e : pool.endpoints()) {
            if (!e.discoveredReady()) {
                continue;
            }
            Long started = inProgress.putIfAbsent(e.id(), now);
            if (started == null) {
                scrape(e, now);
            } else if (now - started > lostAfterNanos && inProgress.replace(e.id(), started, now)) {
                LogFields.warn(LOG, "endpoint check lost; checking again", "endpoint", e.id(),
                        "startedMsAgo", TimeUnit.NANOSECONDS.toMillis(now - started));
                scrape(e, now);
            }
        }
    }

    /**
     * {@code /health} first: an engine that says it is unhealthy stops getting new requests at once,
     * even while its metrics endpoint still answers. Then {@code /metrics}.
     */
    private long scrapeTimeoutMs() {
        return Math.max(1000, Math.min(5000, interval.toMillis() * 4));
    }

    private void scrape(EndpointState r, long checkStartedNanos) {
        long timeoutMs = scrapeTimeoutMs();
        long startedAt = System.nanoTime();
        // vLLM answers /health from its API server's event loop even under full load; silence means a frozen process.
        get(r.url() + "/health", healthTimeout.toMillis())
                .recover(err -> Future.failedFuture(err instanceof UnhealthyReplicaException || Refusals.refused(err) ? err
                        : new UnhealthyReplicaException("/health did not answer within " + healthTimeout.toMillis() + " ms: " + err, true)))
                .compose(health -> {
                    if (health.statusCode() == 200) {
                        lastHealthyNanos.put(r.id(), System.nanoTime());
                    }
                    return Future.succeededFuture(health);
                })
                .compose(health -> health.statusCode() == 200
                        ? get(r.url() + "/metrics", timeoutMs)
                        : Future.failedFuture(new UnhealthyReplicaException("/health answered " + health.statusCode(), false)))
                .compose(resp -> resp.statusCode() == 200
                        ? Future.succeededFuture(resp.body())
                        : Future.failedFuture(new IllegalStateException("/metrics answered " + resp.statusCode())))
                .onComplete(ar -> {
                    // Only this check's own entry: a lost one's late answer must not end its replacement's.
                    inProgress.remove(r.id(), checkStartedNanos);
                    if (closed) {
                        return;
                    }
                    if (ar.succeeded()) {
                        EndpointMetrics scraped = EngineMetricsParser.parseEndpoint(ar.result().toString(), System.nanoTime());
                        consecutiveFailures.remove(r.id());
                        askEngineVersion(r);
                        if (r.servedModelsAnswered()) {
                            pool.recordScrape(r.id(), scraped);
                            askServedModels(r);
                            return;
                        }
                        // A new endpoint enters placement only once its names were asked: placed earlier, a session on
                        // an alias would be pinned under the alias's own key and then under its model's key once the
                        // list arrives, a second NEW and often another replica. Refused or silent also counts as asked.
                        askServedModels(r).onComplete(asked -> {
                            if (!closed && r.servedModelsAnswered()) {
                                pool.recordScrape(r.id(), scraped);
                            }
                        });
                        return;
                    }
                    int n = consecutiveFailures.merge(r.id(), 1, Integer::sum);
                    Throwable cause = ar.cause();
                    if (blame(r.id(), cause, n, startedAt)) {
                        if (pool.anyHealthy(r.id())) {
                            LogFields.warn(LOG, "endpoint check failed", "endpoint", r.id(), "failures", n, "cause", cause);
                        }
                        pool.markUnhealthy(r.id());
                    }
                });
    }

    /**
     * Whether a failed check takes the replica out. A refused connection or a /health that answered non-200: at
     * once. A silent /health (no answer, or no connection, within healthTimeout) only while other replicas answer
     * theirs and no proxied response brought bytes from this one while the check waited: when all go quiet at once,
     * the router itself (a pause, a machine out of CPU) is the likelier cause, and a replica streaming answers is
     * alive however slowly it accepts check connections; taking it out would turn a busy moment into lost requests.
     * Other failures (a slow /metrics) after a few in a row, under the same proof of life.
     */
    private boolean blame(String endpointId, Throwable cause, int failuresInARow, long checkStartedNanos) {
        if (Refusals.refused(cause) || cause instanceof UnhealthyReplicaException u && !u.timedOut) {
            return true;
        }
        if (pool.heardFromSince(endpointId, checkStartedNanos)) {
            // It streamed answers while its check waited: alive, however slowly it accepts check connections.
            return false;
        }
        if (cause instanceof UnhealthyReplicaException) {
            return lastHealthyNanos.entrySet().stream().anyMatch(e -> !e.getKey().equals(endpointId) && e.getValue() > checkStartedNanos);
        }
        return failuresInARow >= FAILURES_BEFORE_UNHEALTHY;
    }

    /**
     * Asks the endpoint which names it serves when it is due ({@link EndpointState#servedModelsDue}): after its check,
     * with the same timeout, never blocking the check. An endpoint that does not answer keeps what it last answered
     * (or counts as serving every name). Completes when the answer (or its failure) is recorded, at once when not due.
     */
    private Future<Void> askServedModels(EndpointState e) {
        long now = System.nanoTime();
        if (closed || !e.servedModelsDue(now) || !askingServedModels.add(e.id())) {
            return Future.succeededFuture();
        }
        e.servedModelsAsked(now, SERVED_MODELS_REFRESH_NANOS);
        return get(e.url() + "/v1/models", scrapeTimeoutMs())
                .compose(resp -> resp.statusCode() == 200
                        ? Future.succeededFuture(resp.body())
                        : Future.failedFuture(new IllegalStateException("/v1/models answered " + resp.statusCode())))
                .map(body -> ServedModels.parse(body.toString()))
                .onComplete(ar -> {
                    askingServedModels.remove(e.id());
                    if (closed) {
                        return;
                    }
                    if (ar.succeeded()) {
                        e.servedModelsRead();
                        servedModelsUnread.remove(e.id());
                        pool.recordServedModels(e.id(), ar.result());
                        return;
                    }
                    e.servedModelsFailed(System.nanoTime(), SERVED_MODELS_REFRESH_NANOS);
                    if (servedModelsUnread.add(e.id())) {
                        LogFields.warn(LOG, e.servedModels().known()
                                        ? "endpoint's served model names unreadable; it keeps the names it listed before"
                                        : "endpoint's served model names unreadable; until they are read it counts as serving every name",
                                "endpoint", e.id(), "cause", ar.cause().getMessage());
                    }
                })
                .mapEmpty();
    }

    /**
     * Asks the endpoint's {@code /version} when it is due: once when it appears and again after it restarts or a check
     * failed (it may have come back as another engine), never at every check. A 404 (an engine without it) or an
     * unreadable answer settles it as unknown; no answer has it asked again later.
     */
    private void askEngineVersion(EndpointState e) {
        if (closed || !e.engineVersionDue(System.nanoTime()) || !askingEngineVersion.add(e.id())) {
            return;
        }
        get(e.url() + "/version", scrapeTimeoutMs()).onComplete(ar -> {
            askingEngineVersion.remove(e.id());
            if (closed) {
                return;
            }
            long now = System.nanoTime();
            if (ar.succeeded() && ar.result().statusCode() == 200) {
                pool.recordEngineVersion(e.id(), EngineVersion.parseResponse(ar.result().body().toString()), now, 0);
            } else if (ar.succeeded() && ar.result().statusCode() == 404) {
                pool.recordEngineVersion(e.id(), EngineVersion.UNKNOWN, now, 0);
            } else {
                pool.recordEngineVersion(e.id(), EngineVersion.UNKNOWN, now, ENGINE_VERSION_RETRY_NANOS);
            }
        });
    }

    private record BufferedResponse(int statusCode, Buffer body) {
    }

    private Future<BufferedResponse> get(String uri, long timeoutMs) {
        // The connect timeout also bounds the wait for a pooled connection; the idle timeout bounds the answer.
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(uri)
                .setConnectTimeout(timeoutMs).setIdleTimeout(timeoutMs);
        return client.request(opts).compose(req -> req.send())
                .compose(resp -> resp.body().map(b -> new BufferedResponse(resp.statusCode(), b)));
    }

    /** The engine answered its health check with something other than 200. */
    private static final class UnhealthyReplicaException extends Exception {
        final boolean timedOut;

        UnhealthyReplicaException(String message, boolean timedOut) {
            super(message, null, false, false);
            this.timedOut = timedOut;
        }
    }

    @Override
    public void close() {
        closed = true;
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
    }
}
