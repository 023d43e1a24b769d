package io.lmwarden.router.pool;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The router's live, thread-safe record of one replica: what discovery says, what the last scrape
 * said, and the router's own counters. Placement never reads it directly; it reads a {@link ReplicaView}.
 */
public final class ReplicaState {

    private final String id;
    private final String endpointId;
    /** The engine rank behind the endpoint this replica is, or -1 when it is the whole endpoint. */
    private final int rank;
    private volatile String url;
    /** {@link #url} taken apart; null when it is not a plain http(s) URL. */
    private volatile ReplicaAddress address;
    private volatile boolean discoveredReady;
    /** Discovery says its endpoint is going (terminating, still serving). */
    private volatile boolean discoveredDraining;
    private volatile boolean healthy = true;
    private volatile ScrapedMetrics metrics;
    private volatile int pendingAtScrape;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Requests sent since the last scrape: the engine has not counted them yet (vLLM's balancer does the same). */
    private final AtomicInteger sentSinceScrape = new AtomicInteger();
    /**
     * Requests placed here whose new session's pin the router cluster is still settling (sent once it is): counted as
     * in flight and sent, as they were when the claim settled on the spot, so that a burst of new sessions spreads.
     */
    private final AtomicInteger awaitingPin = new AtomicInteger();
    /** Prompt tokens sent here whose prefill has not produced a first byte yet: work ahead of a new request. */
    private final AtomicLong pendingPrefillTokens = new AtomicLong();
    private final AtomicInteger pendingRequests = new AtomicInteger();
    private final LongAdder requests = new LongAdder();
    private final LongAdder spilledIn = new LongAdder();
    private final LongAdder clientPinned = new LongAdder();
    private final LongAdder failures = new LongAdder();
    /** When a proxied response last brought bytes from this replica: proof of life a starved health check lacks. */
    private volatile long heardAtNanos;
    private volatile boolean heard;
    private static final long HEARD_RESOLUTION_NANOS = 10_000_000;

    public ReplicaState(String id, String url, boolean ready) {
        this(id, id, -1, url, ready);
    }

    /** Engine {@code rank} (or -1: all of it) of the endpoint {@code endpointId} at {@code url}. */
    public ReplicaState(String id, String endpointId, int rank, String url, boolean ready) {
        this.id = id;
        this.endpointId = endpointId;
        this.rank = rank;
        this.url = url;
        this.address = ReplicaAddress.parse(url);
        this.discoveredReady = ready;
    }

    public String id() {
        return id;
    }

    /** The endpoint (API server) this replica is, or is an engine rank of. */
    public String endpointId() {
        return endpointId;
    }

    /** The value for {@code X-data-parallel-rank} when this replica is one engine of a data-parallel server. */
    public java.util.OptionalInt dataParallelRank() {
        return rank < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(rank);
    }

    public String url() {
        return url;
    }

    /** The URL's parts, or null when it is not a plain http(s) URL. */
    public ReplicaAddress address() {
        return address;
    }

    void update(String newUrl, boolean ready) {
        if (!newUrl.equals(url)) {
            this.address = ReplicaAddress.parse(newUrl);
        }
        this.url = newUrl;
        this.discoveredReady = ready;
    }

    void discoveredDraining(boolean draining) {
        this.discoveredDraining = draining;
    }

    /** Discovery says its endpoint is going: it takes no new work (operators' drains are the pool's). */
    public boolean discoveredDraining() {
        return discoveredDraining;
    }

    public boolean discoveredReady() {
        return discoveredReady;
    }

    public boolean healthy() {
        return healthy;
    }

    public void markHealthy(boolean ok) {
        this.healthy = ok;
    }

    /** A proxied response brought bytes from this replica now (written at most every 10 ms: many streams share it). */
    public void heardFrom(long nowNanos) {
        if (!heard || nowNanos - heardAtNanos > HEARD_RESOLUTION_NANOS) {
            heardAtNanos = nowNanos;
            heard = true;
        }
    }

    /** Whether a proxied response brought bytes from this replica at or after {@code sinceNanos} (to within 10 ms). */
    public boolean heardSince(long sinceNanos) {
        return heard && heardAtNanos - sinceNanos >= -HEARD_RESOLUTION_NANOS;
    }

    public ScrapedMetrics metrics() {
        return metrics;
    }

    public void recordScrape(ScrapedMetrics m) {
        this.metrics = m;
        this.pendingAtScrape = pendingRequests.get();
        this.sentSinceScrape.set(0);
        this.healthy = true;
    }

    /**
     * Requests of this router still waiting for a first byte when the last scrape arrived: compared
     * with the engine's waiting count of the same moment, it tells the engine's queue that is not ours.
     */
    public int pendingAtScrape() {
        return Math.max(0, pendingAtScrape);
    }

    public int inFlight() {
        return inFlight.get() + awaitingPin.get();
    }

    public int sentSinceScrape() {
        return sentSinceScrape.get() + awaitingPin.get();
    }

    /** A request placed here waits for its session's pin to settle in the cluster; {@link #pinSettled} when it has. */
    public void awaitingPin() {
        awaitingPin.incrementAndGet();
    }

    public void pinSettled() {
        awaitingPin.decrementAndGet();
    }

    /** A request was dispatched here. */
    public void dispatched() {
        inFlight.incrementAndGet();
        sentSinceScrape.incrementAndGet();
        requests.increment();
    }

    /** A dispatched request ended, however it ended. */
    public void finished() {
        inFlight.decrementAndGet();
    }

    /** A request whose prefill of {@code tokens} uncached tokens is now queued or running here. */
    public void prefillStarted(long tokens) {
        pendingPrefillTokens.addAndGet(tokens);
        pendingRequests.incrementAndGet();
    }

    /** Its first byte came back (or it ended without one): the prefill is no longer ahead of anyone. */
    public void prefillDone(long tokens) {
        pendingPrefillTokens.addAndGet(-tokens);
        pendingRequests.decrementAndGet();
    }

    public long pendingPrefillTokens() {
        return Math.max(0, pendingPrefillTokens.get());
    }

    public int pendingRequests() {
        return Math.max(0, pendingRequests.get());
    }

    public void countSpillIn() {
        spilledIn.increment();
    }

    public void countClientPinned() {
        clientPinned.increment();
    }

    public void countFailure() {
        failures.increment();
    }

    public long requests() {
        return requests.sum();
    }

    public long spilledIn() {
        return spilledIn.sum();
    }

    public long clientPinned() {
        return clientPinned.sum();
    }

    public long failures() {
        return failures.sum();
    }
}
