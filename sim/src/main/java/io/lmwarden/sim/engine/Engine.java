package io.lmwarden.sim.engine;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimProfile;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One simulated vLLM engine: a V1-style scheduler (running requests first, then FCFS admission of waiting ones
 * while the step's token budget, max_num_seqs and free KV blocks allow), a prefix-cached block pool, preemption
 * of the most recently admitted request when blocks run out, and a step time from the profile's cost model.
 *
 * <p>Runs on its own thread. The thread parks when there is no work and sleeps for the (scaled) duration of
 * each step; request submission and aborts take the lock only briefly.
 */
public final class Engine implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Engine.class.getName());
    /** At most one streamed chunk per request per this many wall nanoseconds (the first token is never held). */
    private static final long FLUSH_INTERVAL_NANOS = 5_000_000L;
    /** How far (wall seconds) the engine may run behind the clock before its simulated time resyncs. */
    private static final double MAX_LAG_WALL_SECONDS = 0.05;

    private final int index;
    private final SimProfile profile;
    private final SimClock clock;
    private final KvBlockPool pool;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workArrived = lock.newCondition();
    private final ArrayDeque<SimRequest> waiting = new ArrayDeque<>();
    private final List<SimRequest> running = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;
    private long nextId;
    private double engineTime;

    private long prefixQueries;
    private long prefixHits;
    private long promptTokens;
    private long generationTokens;
    private long preemptions;
    private long finishedStop;
    private long finishedLength;
    private long finishedAbort;
    private final RequestStats stats;

    public Engine(int index, SimProfile profile, SimClock clock) {
        this.index = index;
        this.profile = profile;
        this.clock = clock;
        this.pool = new KvBlockPool(profile.kvBlocks());
        this.stats = new RequestStats(profile.maxModelLen());
        this.thread = new Thread(this::loop, "lmw-sim-engine-" + index);
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public int index() {
        return index;
    }

    public SimProfile profile() {
        return profile;
    }

    /**
     * Queues a request. {@code outputTokens} is the whole output it will generate; {@code stopsAtMaxTokens} says
     * whether that length is max_tokens (finish reason "length") or an earlier natural stop ("stop").
     */
    public SimRequest submit(int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens,
                             RequestListener listener) {
        return submit(promptTokens, outputTokens, stopsAtMaxTokens, 0, listener);
    }

    /** As {@link #submit(int[], int[], boolean, RequestListener)}, with a cache salt (0 = none) in the first block's hash. */
    public SimRequest submit(int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens, long cacheSalt,
                             RequestListener listener) {
        if (promptTokens.length < 1 || outputTokens.length < 1) {
            throw new IllegalArgumentException("a request needs at least one prompt and one output token");
        }
        if (promptTokens.length + outputTokens.length > profile.kvCapacityTokens()) {
            throw new IllegalArgumentException("request of " + (promptTokens.length + outputTokens.length)
                    + " tokens does not fit a KV cache of " + profile.kvCapacityTokens() + " tokens");
        }
        lock.lock();
        try {
            SimRequest r = new SimRequest(nextId++, promptTokens, outputTokens, stopsAtMaxTokens,
                    profile.blockSize(), cacheSalt, listener, clock.now());
            waiting.addLast(r);
            workArrived.signal();
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** Client went away: frees the request's blocks and counts it as aborted. No-op once finished. */
    public void abort(SimRequest r) {
        lock.lock();
        try {
            if (r.status == SimRequest.Status.FINISHED) {
                return;
            }
            if (r.status == SimRequest.Status.WAITING) {
                waiting.remove(r);
            } else {
                running.remove(r);
                releaseBlocks(r);
            }
            r.status = SimRequest.Status.FINISHED;
            finishedAbort++;
        } finally {
            lock.unlock();
        }
    }

    /** Drops the finished ones from {@code requests} (all submitted here) and returns how many are left. */
    public int retainUnfinished(java.util.Collection<SimRequest> requests) {
        lock.lock();
        try {
            requests.removeIf(r -> r.status == SimRequest.Status.FINISHED);
            return requests.size();
        } finally {
            lock.unlock();
        }
    }

    public EngineSnapshot snapshot() {
        lock.lock();
        try {
            return new EngineSnapshot(running.size(), waiting.size(), pool.usage(), prefixQueries, prefixHits,
                    promptTokens, generationTokens, preemptions);
        } finally {
            lock.unlock();
        }
    }

    public EngineMetrics metrics() {
        lock.lock();
        try {
            RequestStats s = stats.copy();
            return new EngineMetrics(running.size(), waiting.size(), pool.usage(), profile.kvBlocks(),
                    profile.blockSize(), profile.maxModelLen(), prefixQueries, prefixHits, promptTokens, generationTokens,
                    preemptions, finishedStop, finishedLength, finishedAbort, s.ttft, s.interTokenLatency,
                    s.iterationTokens, s.queueTime, s.prefillTime, s.decodeTime, s.e2eLatency, s.promptTokens,
                    s.generationTokens);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            workArrived.signalAll();
        } finally {
            lock.unlock();
        }
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        List<Runnable> events = new ArrayList<>();
        try {
            while (!closed) {
                Step step;
                double stepEnd;
                lock.lock();
                try {
                    boolean busy = true;
                    while (!closed && waiting.isEmpty() && running.isEmpty()) {
                        busy = false;
                        workArrived.await();
                    }
                    if (closed) {
                        return;
                    }
                    // Back-to-back steps start where the previous one ended, so thread wake-up latency does not
                    // stretch simulated time; a long lag (a starved CPU, or an idle engine) resyncs to the clock.
                    double now = clock.now();
                    boolean keepPace = busy && now - engineTime < MAX_LAG_WALL_SECONDS * clock.timeScale();
                    double start = keepPace ? engineTime : Math.max(engineTime, now);
                    step = schedule(start);
                    if (step.isEmpty()) {
                        // Cannot happen with a consistent profile; never spin if it does.
                        workArrived.await(10, TimeUnit.MILLISECONDS);
                        continue;
                    }
                    stepEnd = start + step.millis(profile) / 1000.0;
                } finally {
                    lock.unlock();
                }
                clock.sleepUntil(stepEnd, () -> closed);
                lock.lock();
                try {
                    engineTime = stepEnd;
                    commit(step, stepEnd, events);
                } finally {
                    lock.unlock();
                }
                for (Runnable e : events) {
                    e.run();
                }
                events.clear();
            }
        } catch (InterruptedException e) {
            if (!closed) {
                LogFields.warn(LOG, "engine interrupted", "engine", index);
            }
        } catch (RuntimeException e) {
            LogFields.log(LOG, Level.SEVERE, "engine failed", e, "engine", index);
            throw e;
        }
    }

    /** One scheduler pass at simulated time {@code now}. Caller holds the lock. */
    private Step schedule(double now) {
        Step step = new Step();
        int budget = profile.maxNumBatchedTokens();
        boolean preempted = false;
        int bs = profile.blockSize();
        for (int i = 0; i < running.size() && budget > 0; i++) {
            SimRequest r = running.get(i);
            int n = Math.min(r.numTokens() - r.numComputed, budget);
            boolean scheduled = true;
            while (!allocateSlots(r, r.numComputed + n)) {
                SimRequest victim = running.remove(running.size() - 1);
                preempt(victim);
                preempted = true;
                if (victim == r) {
                    scheduled = false;
                    break;
                }
            }
            if (!scheduled) {
                break;
            }
            step.add(r, n);
            budget -= n;
        }
        while (!preempted && !waiting.isEmpty() && running.size() < profile.maxNumSeqs() && budget > 0) {
            SimRequest r = waiting.peekFirst();
            int total = r.numTokens();
            // vLLM never serves the last token from cache: at least one token is computed.
            int maxHitBlocks = Math.min((total - 1) / bs, r.blockHashes.length);
            int hits = 0;
            int freedByTouch = 0;
            int[] hitBlocks = new int[maxHitBlocks];
            for (; hits < maxHitBlocks; hits++) {
                int blk = pool.lookup(r.blockHashes[hits]);
                if (blk < 0) {
                    break;
                }
                hitBlocks[hits] = blk;
                if (pool.isFree(blk)) {
                    freedByTouch++;
                }
            }
            int computed = hits * bs;
            int n = Math.min(total - computed, budget);
            int newBlocks = ceilDiv(computed + n, bs) - hits;
            if (newBlocks > pool.freeBlocks() - freedByTouch) {
                break;
            }
            waiting.pollFirst();
            for (int h = 0; h < hits; h++) {
                pool.touch(hitBlocks[h]);
                r.addBlock(hitBlocks[h]);
            }
            for (int k = 0; k < newBlocks; k++) {
                r.addBlock(pool.allocate());
            }
            r.numComputed = computed;
            r.numCachedBlocks = hits;
            prefixQueries += total;
            prefixHits += computed;
            if (r.cachedTokens < 0) {
                r.cachedTokens = computed;
            }
            if (r.firstScheduled < 0) {
                r.firstScheduled = Math.max(now, r.arrival);
            }
            r.status = SimRequest.Status.RUNNING;
            running.add(r);
            step.add(r, n);
            budget -= n;
        }
        return step;
    }

    /** Makes sure {@code r} has blocks for {@code tokens} tokens; false when the pool is short. */
    private boolean allocateSlots(SimRequest r, int tokens) {
        int needed = ceilDiv(tokens, profile.blockSize()) - r.numBlocks;
        if (needed > pool.freeBlocks()) {
            return false;
        }
        for (int k = 0; k < needed; k++) {
            r.addBlock(pool.allocate());
        }
        return true;
    }

    private void preempt(SimRequest r) {
        releaseBlocks(r);
        r.numComputed = 0;
        r.status = SimRequest.Status.WAITING;
        waiting.addFirst(r);
        preemptions++;
    }

    /** Frees in reverse order so a request's tail blocks are evicted before its shared prefix (as vLLM does). */
    private void releaseBlocks(SimRequest r) {
        for (int k = r.numBlocks - 1; k >= 0; k--) {
            pool.release(r.blocks[k]);
        }
        r.numBlocks = 0;
        r.numCachedBlocks = 0;
    }

    private void commit(Step step, double now, List<Runnable> events) {
        int bs = profile.blockSize();
        long wallNow = System.nanoTime();
        long promptOfFirstTokens = 0;
        long generated = 0;
        for (int i = 0; i < step.size(); i++) {
            SimRequest r = step.request(i);
            if (r.status != SimRequest.Status.RUNNING) {
                continue;
            }
            r.numComputed += step.tokens(i);
            int full = Math.min(r.numComputed / bs, r.blockHashes.length);
            for (int b = r.numCachedBlocks; b < full; b++) {
                pool.cache(r.blocks[b], r.blockHashes[b]);
            }
            r.numCachedBlocks = Math.max(r.numCachedBlocks, full);
            if (r.numComputed < r.numTokens()) {
                continue;
            }
            r.numOutput++;
            generationTokens++;
            generated++;
            boolean first = r.numOutput == 1;
            stats.token(r, now, first);
            if (first) {
                promptTokens += r.promptLen;
                promptOfFirstTokens += r.promptLen;
            }
            if (r.numOutput >= r.targetOutput) {
                finish(r, now, events);
            } else if (first || wallNow - r.lastFlushNanos >= FLUSH_INTERVAL_NANOS) {
                r.lastFlushNanos = wallNow;
                int count = r.numOutput;
                int cached = Math.max(0, r.cachedTokens);
                RequestListener l = r.listener;
                events.add(() -> l.onTokens(count, cached, first));
            }
        }
        stats.step(promptOfFirstTokens, generated);
    }

    private void finish(SimRequest r, double now, List<Runnable> events) {
        running.remove(r);
        releaseBlocks(r);
        r.status = SimRequest.Status.FINISHED;
        String reason = r.stopsAtMaxTokens ? "length" : "stop";
        if (r.stopsAtMaxTokens) {
            finishedLength++;
        } else {
            finishedStop++;
        }
        stats.finished(r, now);
        FinishedRequest result = new FinishedRequest(r.promptLen, Math.max(0, r.cachedTokens), r.numOutput, reason);
        RequestListener l = r.listener;
        if (r.numOutput == 1) {
            events.add(() -> l.onTokens(1, result.cachedTokens(), true));
        }
        events.add(() -> l.onFinished(result));
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    /** The requests one step computes and how many tokens each. */
    private static final class Step {
        private final List<SimRequest> requests = new ArrayList<>();
        private int[] tokens = new int[16];
        private int prefillTokens;
        private int decodes;
        private long context;

        void add(SimRequest r, int n) {
            if (requests.size() == tokens.length) {
                tokens = java.util.Arrays.copyOf(tokens, tokens.length * 2);
            }
            tokens[requests.size()] = n;
            requests.add(r);
            boolean decoding = r.numComputed >= r.promptLen + r.numOutput - 1 && n == 1 && r.numOutput > 0;
            if (decoding) {
                decodes++;
            } else {
                prefillTokens += n;
            }
            context += r.numComputed + n;
        }

        boolean isEmpty() {
            return requests.isEmpty();
        }

        int size() {
            return requests.size();
        }

        SimRequest request(int i) {
            return requests.get(i);
        }

        int tokens(int i) {
            return tokens[i];
        }

        double millis(SimProfile p) {
            return p.stepMillis(prefillTokens, decodes, context);
        }
    }
}
