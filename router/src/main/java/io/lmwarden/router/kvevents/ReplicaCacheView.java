package io.lmwarden.router.kvevents;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * What one engine (a replica, or one data-parallel rank) holds in its KV cache, by its own events: the index, and
 * how much to trust it. One subscriber thread writes it a batch at a time; placement reads it from any thread. A
 * read takes the read lock for the length of one lookup (microseconds for a 100k-token prompt; a writer holds the
 * lock for one batch), never across I/O, so an event loop may call it.
 */
public final class ReplicaCacheView {

    private final String id;
    private final long staleAfterNanos;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final ReplicaBlockIndex index;
    private final LongSupplier nanoClock;
    private final long createdNanos;
    private final AtomicLong unansweredTrafficSince = new AtomicLong(Long.MIN_VALUE); // no batch since then

    // Written by the subscriber thread only; read by anyone.
    private volatile boolean connected;
    private volatile long disconnectedSinceNanos = Long.MIN_VALUE;
    private volatile long lastBatchNanos = Long.MIN_VALUE;
    private volatile boolean syncing;
    private volatile boolean complete;
    private volatile long batches;
    private volatile long events;
    private volatile long gaps;
    private volatile long replays;
    private volatile long resyncs;
    private volatile long unreadable;
    private volatile long skipped;
    private volatile long restarts;
    private volatile long reconnects;
    private volatile long colds;
    private volatile long coldAtMillis = -1;

    ReplicaCacheView(String id, Duration staleAfter, int evictionLogCapacity) {
        this(id, staleAfter, evictionLogCapacity, System::nanoTime);
    }

    /** {@code nanoClock}: what its times are read from ({@code System::nanoTime} but in tests). */
    ReplicaCacheView(String id, Duration staleAfter, int evictionLogCapacity, LongSupplier nanoClock) {
        this.id = id;
        this.staleAfterNanos = staleAfter.toNanos();
        this.index = new ReplicaBlockIndex(evictionLogCapacity);
        this.nanoClock = nanoClock;
        this.createdNanos = nanoClock.getAsLong();
    }

    public String id() {
        return id;
    }

    /** What the engine holds of a request's blocks, by the request's keys ({@link BlockKeys#chain}). */
    public CachedPrefix lookup(long[] blockKeys) {
        lock.readLock().lock();
        try {
            return index.lookup(blockKeys);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * What the engine holds of a prompt given as token ids, with the request's LoRA name and cache salt (either may
     * be null). The keys are computed at the engine's block size, known from its first event; before that nothing is
     * held.
     */
    public CachedPrefix lookup(int[] promptTokenIds, String loraName, String cacheSalt) {
        int blockSize = blockSize();
        if (blockSize <= 0) {
            return CachedPrefix.none(0, 0);
        }
        return lookup(BlockKeys.chain(BlockKeys.root(loraName, cacheSalt), promptTokenIds, blockSize));
    }

    /** Whether the engine holds the block with this key in {@code medium}. */
    public boolean holds(long blockKey, Medium medium) {
        lock.readLock().lock();
        try {
            return index.holds(blockKey, medium);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** When the block with this key last left the GPU (epoch millis), or -1 if the view did not see it go. */
    public long evictedAtMillis(long blockKey) {
        lock.readLock().lock();
        try {
            return index.evictedAt(blockKey);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The engine's KV block size, learned from its events (0 until the first store). */
    public int blockSize() {
        lock.readLock().lock();
        try {
            return index.blockSize();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Tells the view that the router just sent a request there. An engine that takes requests produces events, so
     * a stream that stays silent for {@code staleAfter} after the first request no batch has followed is stale
     * (however many requests come after it); an idle engine's silence is not.
     */
    public void noteTraffic() {
        long now = nanoClock.getAsLong();
        unansweredTrafficSince.updateAndGet(since ->
                since == Long.MIN_VALUE || answered(since) ? now : since);
    }

    /** How long the router's traffic there has gone without a batch following it (0 when answered or none). */
    long unansweredTrafficNanos(long now) {
        long traffic = unansweredTrafficSince.get();
        return traffic == Long.MIN_VALUE || answered(traffic) ? 0 : now - traffic;
    }

    /** Sockets replaced because their greeting stalled (JeroMQ's unfinished greetings) or the stream stayed silent. */
    public long reconnects() {
        return reconnects;
    }

    private boolean answered(long trafficNanos) {
        long batch = lastBatchNanos;
        return batch != Long.MIN_VALUE && batch - trafficNanos >= 0;
    }

    /** How far the view can be trusted right now (cheaper than {@link #status()}: no lock). */
    public ViewState state() {
        return state(nanoClock.getAsLong());
    }

    public ViewStatus status() {
        long now = nanoClock.getAsLong();
        lock.readLock().lock();
        try {
            return new ViewStatus(id, state(now), complete, index.blockSize(), batches, events, gaps, replays, resyncs,
                    unreadable, skipped, restarts,
                    lastBatchNanos == Long.MIN_VALUE ? -1 : Duration.ofNanos(now - lastBatchNanos).toMillis(),
                    index.residentBlocks(Medium.GPU), index.residentBlocks(Medium.CPU),
                    index.residentBlocks(Medium.STORAGE), index.engineEntries(), index.bytes(),
                    index.clearedAtMillis(), index.counters());
        } finally {
            lock.readLock().unlock();
        }
    }

    private ViewState state(long now) {
        if (!connected) {
            long since = disconnectedSinceNanos == Long.MIN_VALUE ? createdNanos : disconnectedSinceNanos;
            return now - since <= staleAfterNanos ? ViewState.CONNECTING : ViewState.STALE;
        }
        long traffic = unansweredTrafficSince.get();
        if (traffic != Long.MIN_VALUE && !answered(traffic) && now - traffic > staleAfterNanos) {
            return ViewState.STALE;
        }
        return syncing ? ViewState.SYNCING : ViewState.LIVE;
    }

    // ---- the subscriber thread's side ----

    void connected(boolean up) {
        if (!up && connected) {
            disconnectedSinceNanos = nanoClock.getAsLong();
        }
        connected = up;
    }

    void syncing(boolean on) {
        syncing = on;
    }

    void batchArrived() {
        lastBatchNanos = nanoClock.getAsLong();
    }

    void apply(KvEventBatch batch, long nowMillis) {
        batches++;
        if (!batch.readable()) {
            unreadable++;
            return;
        }
        skipped += batch.skippedEvents();
        events += batch.events().size();
        lock.writeLock().lock();
        try {
            for (KvEvent e : batch.events()) {
                index.apply(e, nowMillis);
                if (e instanceof KvEvent.AllBlocksCleared) {
                    complete = true; // from here on, every block it holds is announced
                    cold(nowMillis);
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Drops the view: what it held can no longer be trusted. {@code completeFromHere}: the engine starts empty. */
    void reset(boolean completeFromHere, long nowMillis) {
        lock.writeLock().lock();
        try {
            index.reset(nowMillis);
            complete = completeFromHere;
        } finally {
            lock.writeLock().unlock();
        }
    }

    void markComplete() {
        complete = true;
    }

    void countGap() {
        gaps++;
    }

    void countReplay() {
        replays++;
    }

    void countResync() {
        resyncs++;
    }

    void countReconnect() {
        reconnects++;
    }

    void countRestart() {
        restarts++;
        cold(System.currentTimeMillis());
    }

    private void cold(long nowMillis) {
        coldAtMillis = nowMillis;
        colds++;
    }

    /**
     * How often the engine's cache was known to become empty (an {@code AllBlocksCleared}: a reset or a fresh
     * engine; a publisher that started over), and when it last was (epoch ms, -1 never). A resync is not counted:
     * then the view lost track, the engine lost nothing.
     */
    public long coldEvents() {
        return colds;
    }

    public long lastColdAtMillis() {
        return coldAtMillis;
    }
}
