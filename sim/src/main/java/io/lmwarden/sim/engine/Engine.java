package io.lmwarden.sim.engine;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.kvevents.KvCacheEvent;
import io.lmwarden.sim.kvevents.KvEventSink;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One simulated vLLM engine: a V1-style scheduler (running requests first, then FCFS admission of waiting ones
 * while the step's token budget, max_num_seqs and free KV blocks allow), a prefix-cached block pool, preemption
 * of the most recently admitted request when blocks run out, and a step time from the profile's cost model. With a
 * host tier ({@link SimProfile#hasHostTier()}), completed prompt blocks are copied to it as they are computed and a
 * prefix found there is loaded back at the tier's bandwidth while the request waits (vLLM's WAITING_FOR_REMOTE_KVS).
 * With LoRA ({@link #useLora}), a step's batch holds at most max_loras adapters (a waiting request whose adapter has no
 * slot is skipped), the batch's adapters are made resident before the step at their load cost, and an adapter's
 * requests hash their blocks apart from every other identity's.
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
    /** The host-memory tier, or null without one. */
    private final HostKvTier hostTier;
    private final CacheTierStats tierStats;
    /** The KV events of the step in progress, handed to {@link #eventSink} when it ends. */
    private final List<KvCacheEvent> stepEvents = new ArrayList<>();
    private volatile KvEventSink eventSink = KvEventSink.NONE;
    /** vLLM's {@code self_describing_kv_events} (≥ 0.24): host-tier events carry token ids, parent and group like GPU ones. */
    private volatile boolean selfDescribingHostEvents;
    /** Simulated time the host→GPU link is busy until: loads queue on it. */
    private double loadLinkFreeAt;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workArrived = lock.newCondition();
    /** vLLM's waiting queue: arrival order (FCFS), or by (priority, arrival) under the priority policy ({@link #enqueue}). */
    private final java.util.LinkedList<SimRequest> waiting = new java.util.LinkedList<>();
    /** vLLM's --scheduling-policy priority: the queue by (priority, arrival), the preempted one the last by that order. */
    private volatile boolean priorityPolicy;
    /** Steps the engine may still run before it holds (the fault API's {@link #pause}, {@link #allowSteps}); -1: no
     * limit, 0: held between steps. Guarded by the lock. */
    private int stepsAllowed = -1;
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
    /** LoRA as vLLM's --enable-lora configures it; DISABLED: no adapter, no max_loras rule. */
    private io.lmwarden.sim.lora.LoraOptions lora = io.lmwarden.sim.lora.LoraOptions.DISABLED;
    private io.lmwarden.sim.lora.AdapterResidency residency;
    private io.lmwarden.sim.lora.LoraRequestsInfo loraInfo;
    /**
     * Per adapter with a request waiting or running: {waiting, running}, in the order its first live request arrived
     * (vLLM's LoRARequestStates, a dict that drops an adapter when it has none left).
     */
    private final java.util.LinkedHashMap<String, int[]> loraStates = new java.util.LinkedHashMap<>();
    /** Requests the scheduler skipped at least once because their adapter had no slot in the batch. */
    private long loraSlotWaits;

    public Engine(int index, SimProfile profile, SimClock clock) {
        this.index = index;
        this.profile = profile;
        this.clock = clock;
        this.pool = new KvBlockPool(profile.kvBlocks(), this::evictedFromGpu);
        this.hostTier = profile.hasHostTier() ? new HostKvTier(profile.hostTierBlocks()) : null;
        this.tierStats = new CacheTierStats(profile);
        this.stats = new RequestStats(profile.maxModelLen());
        this.thread = new Thread(this::loop, "lmw-sim-engine-" + index);
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /**
     * Serves LoRA adapters as vLLM does with {@code --enable-lora}: a batch holds at most {@code max_loras} adapters,
     * adapters are made resident (disk → CPU → GPU slot) before the step that needs them, and {@code info} is recorded
     * after every step. Call before {@link #start()}.
     */
    public void useLora(io.lmwarden.sim.lora.LoraOptions options, io.lmwarden.sim.lora.LoraRequestsInfo info) {
        lock.lock();
        try {
            this.lora = options;
            this.residency = new io.lmwarden.sim.lora.AdapterResidency(options);
            this.loraInfo = info;
        } finally {
            lock.unlock();
        }
    }

    /** vLLM's add_lora on this engine: the adapter is registered in CPU memory (evicting the least recently used). */
    public void preloadAdapter(String name) {
        lock.lock();
        try {
            if (residency != null) {
                residency.preload(name);
            }
        } finally {
            lock.unlock();
        }
    }

    /** vLLM's remove_lora: the adapter leaves CPU memory and its GPU slot (requests still using it reload it). */
    public void removeAdapter(String name) {
        lock.lock();
        try {
            if (residency != null) {
                residency.remove(name);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Where the adapter is now on this engine: "gpu", "cpu" or "disk"; null without LoRA. */
    public String adapterResidence(String name) {
        lock.lock();
        try {
            return residency == null ? null : residency.inGpu(name) ? "gpu" : residency.inCpu(name) ? "cpu" : "disk";
        } finally {
            lock.unlock();
        }
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
        return submit(promptTokens, outputTokens, stopsAtMaxTokens, null, listener);
    }

    /** As {@link #submit(int[], int[], boolean, RequestListener)}, with a cache salt (null = none) in the first block's hash. */
    public SimRequest submit(int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens, String cacheSalt,
                             RequestListener listener) {
        return submit(promptTokens, outputTokens, stopsAtMaxTokens, cacheSalt, null, listener);
    }

    /** As above, under a LoRA adapter ({@code adapter} null = the base model). */
    public SimRequest submit(int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens, String cacheSalt,
                             io.lmwarden.sim.lora.Adapter adapter, RequestListener listener) {
        return submit(promptTokens, outputTokens, stopsAtMaxTokens, cacheSalt, adapter, 0, listener);
    }

    /** As above, with vLLM's request {@code priority} (lower first; it orders only under the priority policy). */
    public SimRequest submit(int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens, String cacheSalt,
                             io.lmwarden.sim.lora.Adapter adapter, int priority, RequestListener listener) {
        if (adapter != null && !lora.enabled()) {
            throw new IllegalArgumentException("LoRA is not enabled on this engine");
        }
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
                    profile.blockSize(), cacheSalt, adapter, listener, clock.now());
            r.priority = priority;
            enqueue(r, false);
            loraState(r, 1, 0);
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
            } else if (r.status == SimRequest.Status.LOADING) {
                waiting.remove(r);
                hostTier.unpin(r.blockHashes, r.loadFrom, r.loadTo);
                releaseBlocks(r);
            } else {
                running.remove(r);
                releaseBlocks(r);
            }
            loraState(r, r.status == SimRequest.Status.RUNNING ? 0 : -1, r.status == SimRequest.Status.RUNNING ? -1 : 0);
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
                    promptTokens, generationTokens, preemptions, tierStats.externalQueries, tierStats.externalHits,
                    hostTier == null ? 0 : hostTier.size(), hostTier == null ? 0 : hostTier.capacity(), loraSlotWaits,
                    residency == null ? 0 : residency.diskLoads(), residency == null ? 0 : residency.activations());
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

    /** The host tier's and the prompt-token-source counters, beside {@link #metrics()}. */
    public CacheTierMetrics cacheTierMetrics() {
        lock.lock();
        try {
            return tierStats.copy(hostTier);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends this engine's KV cache events to {@code sink} from now on (one call per step that produced any);
     * {@code selfDescribingHostEvents} as vLLM's offloading connector option of that name.
     */
    public void publishKvEvents(KvEventSink sink, boolean selfDescribingHostEvents) {
        this.selfDescribingHostEvents = selfDescribingHostEvents;
        this.eventSink = sink;
    }

    /**
     * vLLM's reset_prefix_cache: forgets every cached block (both tiers) and announces AllBlocksCleared. Refused (false)
     * while requests hold blocks, as vLLM refuses.
     */
    public boolean resetPrefixCache() {
        List<KvCacheEvent> cleared;
        lock.lock();
        try {
            if (!running.isEmpty() || !waiting.isEmpty() || !pool.resetPrefixCache()) {
                return false;
            }
            if (hostTier != null) {
                hostTier.clear(new ArrayList<>());
            }
            cleared = List.of(new KvCacheEvent.AllBlocksCleared());
        } finally {
            lock.unlock();
        }
        eventSink.publish(cleared);
        return true;
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
                    while (!closed && (stepsAllowed == 0 || waiting.isEmpty() && running.isEmpty())) {
                        busy = false;
                        workArrived.await();
                    }
                    if (closed) {
                        return;
                    }
                    // Back-to-back steps start where the previous one ended, so thread wake-up latency does not
                    // stretch simulated time; a long lag (a starved CPU) resyncs to the clock. An idle engine starts
                    // at its first arrival, as vLLM's busy loop would: this thread's wake-up is no request's queue time.
                    double now = clock.now();
                    boolean keepPace = busy && now - engineTime < MAX_LAG_WALL_SECONDS * clock.timeScale();
                    double start = keepPace ? engineTime : Math.max(engineTime, busy ? now : firstArrival(now));
                    step = schedule(start);
                    if (step.isEmpty()) {
                        flushStepEvents(events);
                        double ready = nextLoadReady();
                        if (ready <= start && running.isEmpty() && preemptLoadedWaiting(start) > 0) {
                            // Nothing runs and nothing loads, but waiting requests hold loaded blocks: freed, the
                            // next pass can schedule (their blocks stay in the prefix cache).
                            continue;
                        }
                        if (ready < 0) {
                            // Cannot happen with a consistent profile; never spin if it does.
                            workArrived.await(10, TimeUnit.MILLISECONDS);
                        } else {
                            // Only host-tier loads are in flight: sleep until the first completes (or work arrives).
                            long wait = clock.wallNanosUntil(ready);
                            if (wait > 0) {
                                workArrived.awaitNanos(wait);
                            } else {
                                // A finished copy the scheduler cannot take up yet: never spin on it.
                                workArrived.await(1, TimeUnit.MILLISECONDS);
                            }
                            engineTime = Math.max(engineTime, Math.min(ready, clock.now()));
                        }
                    }
                    if (step.isEmpty()) {
                        runAll(events);
                        continue;
                    }
                    stepEnd = start + (step.millis(profile) + step.loraMillis) / 1000.0;
                } finally {
                    lock.unlock();
                }
                clock.sleepUntil(stepEnd, () -> closed);
                lock.lock();
                try {
                    engineTime = stepEnd;
                    commit(step, stepEnd, events);
                    if (stepsAllowed > 0) {
                        stepsAllowed--;
                    }
                    recordLoraInfo();
                    flushStepEvents(events);
                } finally {
                    lock.unlock();
                }
                runAll(events);
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

    private static void runAll(List<Runnable> events) {
        for (Runnable e : events) {
            e.run();
        }
        events.clear();
    }

    /** Hands this step's KV events (one vLLM KVEventBatch) to the sink after the step's other callbacks. Caller holds the lock. */
    private void flushStepEvents(List<Runnable> events) {
        if (stepEvents.isEmpty()) {
            return;
        }
        List<KvCacheEvent> batch = List.copyOf(stepEvents);
        stepEvents.clear();
        KvEventSink sink = eventSink;
        events.add(() -> sink.publish(batch));
    }

    /** When the longest-waiting request arrived, at most {@code now}. Caller holds the lock. */
    private double firstArrival(double now) {
        double first = now;
        for (SimRequest r : waiting) {
            first = Math.min(first, r.arrival);
        }
        return first;
    }

    /** The earliest completion time of a host-tier load in flight, or -1. Caller holds the lock. */
    private double nextLoadReady() {
        double next = -1;
        for (SimRequest r : waiting) {
            if (r.status == SimRequest.Status.LOADING && (next < 0 || r.loadReadyAt < next)) {
                next = r.loadReadyAt;
            }
        }
        return next;
    }

    private void evictedFromGpu(long hash) {
        if (eventSink != KvEventSink.NONE) {
            stepEvents.add(new KvCacheEvent.BlockRemoved(new long[] {hash}, KvCacheEvent.MEDIUM_GPU, 0));
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
                // vLLM preempts the last admitted (FCFS), or the last by (priority, arrival) under the priority policy,
                // which may be one already scheduled in this step: it leaves the step and gives its tokens back.
                int at = preemptionVictim(running, priorityPolicy);
                SimRequest victim = running.remove(at);
                if (at < i) {
                    budget += step.remove(victim);
                    i--;
                }
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
        // vLLM's max_loras rule: the adapters of the running requests scheduled in this step take slots; a waiting
        // request whose adapter has none is skipped (it does not hold up the queue behind it).
        java.util.Set<String> scheduledLoras = new java.util.LinkedHashSet<>();
        for (int i = 0; i < step.size(); i++) {
            if (step.request(i).lora != null) {
                scheduledLoras.add(step.request(i).lora.name());
            }
        }
        Iterator<SimRequest> queue = waiting.iterator();
        while (!preempted && queue.hasNext() && running.size() < profile.maxNumSeqs() && budget > 0) {
            SimRequest r = queue.next();
            if (r.status == SimRequest.Status.LOADING) {
                if (r.loadReadyAt > now) {
                    // vLLM skips a request waiting for its KV transfer; it does not hold up the queue behind it.
                    continue;
                }
                finishLoad(r);
            }
            if (r.lora != null && scheduledLoras.size() >= lora.maxLoras() && !scheduledLoras.contains(r.lora.name())) {
                if (!r.waitedForLoraSlot) {
                    r.waitedForLoraSlot = true;
                    loraSlotWaits++;
                }
                continue;
            }
            int total = r.numTokens();
            int n;
            int newBlocks;
            int hits = 0;
            int[] hitBlocks = null;
            if (r.numBlocks > 0) {
                // Loaded from the host tier: its blocks are allocated and no prefix lookup happens again (vLLM).
                n = Math.min(total - r.numComputed, budget);
                newBlocks = Math.max(0, ceilDiv(r.numComputed + n, bs) - r.numBlocks);
                if (newBlocks > pool.freeBlocks()) {
                    break;
                }
            } else {
                // vLLM never serves the last token from cache: at least one token is computed.
                int maxHitBlocks = Math.min((total - 1) / bs, r.blockHashes.length);
                int freedByTouch = 0;
                hitBlocks = new int[maxHitBlocks];
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
                int loadable = hostTier == null ? 0 : hostTierHits(r, hits);
                if (loadable > 0) {
                    if (loadable > pool.freeBlocks() - freedByTouch) {
                        break;
                    }
                    startLoad(r, hitBlocks, hits, loadable, now);
                    continue;
                }
                int computed = hits * bs;
                n = Math.min(total - computed, budget);
                newBlocks = ceilDiv(computed + n, bs) - hits;
                if (newBlocks > pool.freeBlocks() - freedByTouch) {
                    break;
                }
                for (int h = 0; h < hits; h++) {
                    pool.touch(hitBlocks[h]);
                    r.addBlock(hitBlocks[h]);
                }
                r.numComputed = computed;
                r.numCachedBlocks = hits;
                r.externalTokens = 0;
                countLookup(total, computed, 0);
            }
            queue.remove();
            for (int k = 0; k < newBlocks; k++) {
                r.addBlock(pool.allocate());
            }
            if (r.cachedTokens < 0) {
                r.cachedTokens = r.numComputed;
            }
            if (r.firstScheduled < 0) {
                r.firstScheduled = Math.max(now, r.arrival);
            }
            r.status = SimRequest.Status.RUNNING;
            running.add(r);
            loraState(r, -1, 1);
            if (r.lora != null) {
                scheduledLoras.add(r.lora.name());
            }
            step.add(r, n);
            budget -= n;
        }
        if (residency != null && !scheduledLoras.isEmpty()) {
            step.loraMillis = residency.prepare(scheduledLoras);
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

    /**
     * Full blocks after the {@code gpuHits} local ones that the host tier holds in a row (vLLM's offloading connector
     * looks up whole blocks of the request's tokens beyond the GPU hit, and touches all of them).
     */
    private int hostTierHits(SimRequest r, int gpuHits) {
        int fullBlocks = Math.min(r.numTokens() / profile.blockSize(), r.blockHashes.length);
        hostTier.touch(r.blockHashes, fullBlocks);
        return hostTier.matchLength(r.blockHashes, gpuHits, fullBlocks);
    }

    /**
     * Admits {@code r} to wait for {@code loadable} blocks from the host tier: its GPU hits are taken, blocks for the
     * loaded ones allocated, and the copy queued on the host→GPU link at the tier's bandwidth (vLLM allocates the
     * blocks, then parks the request in WAITING_FOR_REMOTE_KVS until the transfer reports done).
     */
    private void startLoad(SimRequest r, int[] hitBlocks, int hits, int loadable, double now) {
        int bs = profile.blockSize();
        for (int h = 0; h < hits; h++) {
            pool.touch(hitBlocks[h]);
            r.addBlock(hitBlocks[h]);
        }
        for (int k = 0; k < loadable; k++) {
            r.addBlock(pool.allocate());
        }
        r.numCachedBlocks = hits;
        r.loadFrom = hits;
        r.loadTo = hits + loadable;
        r.offloadedBlocks = r.loadTo;
        hostTier.pin(r.blockHashes, r.loadFrom, r.loadTo);
        long bytes = loadable * profile.kvBytesPerBlock();
        double seconds = profile.transferSeconds(bytes);
        double start = Math.max(now, loadLinkFreeAt);
        loadLinkFreeAt = start + seconds;
        r.loadReadyAt = loadLinkFreeAt;
        r.externalTokens = loadable * bs;
        // Not "scheduled" yet: vLLM records SCHEDULED only once the transfer is done, so the wait is queue time.
        r.status = SimRequest.Status.LOADING;
        countLookup(r.numTokens(), hits * bs, r.externalTokens);
        tierStats.load(bytes, seconds);
    }

    /**
     * The load is done: the loaded blocks are cached on the GPU and count as computed, except that a request whose
     * whole prompt arrived must still compute its last token (vLLM's _update_waiting_for_remote_kv).
     */
    private void finishLoad(SimRequest r) {
        int bs = profile.blockSize();
        hostTier.unpin(r.blockHashes, r.loadFrom, r.loadTo);
        int computed = Math.min(r.numBlocks * bs, r.numTokens());
        if (computed == r.numTokens()) {
            computed--;
        }
        r.numComputed = computed;
        registerFullBlocks(r, Math.min(computed / bs, r.blockHashes.length));
        r.status = SimRequest.Status.WAITING;
    }

    /** Local-cache and (with a tier) connector counters of one prefix lookup, as vLLM's scheduler records them. */
    private void countLookup(int total, int localHitTokens, int externalTokens) {
        prefixQueries += total;
        prefixHits += localHitTokens;
        if (hostTier != null && total - localHitTokens != 0) {
            tierStats.lookup(total - localHitTokens, externalTokens);
        }
    }

    /**
     * Registers {@code r}'s blocks up to {@code full} under their hashes (vLLM's cache_full_blocks) and announces the ones
     * this call cached as BlockStored on the GPU.
     */
    private void registerFullBlocks(SimRequest r, int full) {
        int from = r.numCachedBlocks;
        if (full <= from) {
            return;
        }
        boolean[] stored = new boolean[full - from];
        for (int b = from; b < full; b++) {
            stored[b - from] = pool.cache(r.blocks[b], r.blockHashes[b]);
        }
        r.numCachedBlocks = full;
        announceStored(r, from, stored, KvCacheEvent.MEDIUM_GPU, true);
    }

    /**
     * One BlockStored per run of consecutive blocks {@code from + i} with {@code stored[i]} (a block another one already
     * held breaks the run, since an event's token ids and parent describe one contiguous chain). {@code describe} =
     * parent, token ids (the ids /tokenize reports), extra keys with the cache salt on block 0, group and spec kind, as
     * vLLM's GPU events and self-describing host-tier events carry; otherwise only the hashes, vLLM's placeholder.
     */
    private void announceStored(SimRequest r, int from, boolean[] stored, String medium, boolean describe) {
        if (eventSink == KvEventSink.NONE) {
            return;
        }
        int bs = profile.blockSize();
        for (int i = 0; i < stored.length; ) {
            if (!stored[i]) {
                i++;
                continue;
            }
            int end = i;
            while (end < stored.length && stored[end]) {
                end++;
            }
            int first = from + i;
            long[] hashes = java.util.Arrays.copyOfRange(r.blockHashes, first, from + end);
            if (describe) {
                int[] tokens = new int[hashes.length * bs];
                for (int t = 0; t < tokens.length; t++) {
                    tokens[t] = r.tokens[first * bs + t] & 0x7fffffff;
                }
                // vLLM's generate_block_hash_extra_keys: the adapter's name first, then the salt (on block 0 only).
                List<List<String>> extraKeys = new ArrayList<>(hashes.length);
                for (int k = 0; k < hashes.length; k++) {
                    List<String> keys = new ArrayList<>(2);
                    if (r.lora != null) {
                        keys.add(r.lora.name());
                    }
                    if (first + k == 0 && r.cacheSalt != null) {
                        keys.add(r.cacheSalt);
                    }
                    extraKeys.add(keys.isEmpty() ? null : keys);
                }
                stepEvents.add(new KvCacheEvent.BlockStored(hashes, first == 0 ? null : r.blockHashes[first - 1], tokens, bs,
                        medium, loraId(r), loraName(r), extraKeys, 0, KvCacheEvent.FULL_ATTENTION));
            } else {
                stepEvents.add(new KvCacheEvent.BlockStored(hashes, null, new int[0], bs, medium, loraId(r), loraName(r), null,
                        null, null));
            }
            i = end;
        }
    }

    private static Integer loraId(SimRequest r) {
        return r.lora == null ? null : r.lora.id();
    }

    private static String loraName(SimRequest r) {
        return r.lora == null ? null : r.lora.name();
    }

    /**
     * Write-through: the prompt blocks {@code r} has completed since the last call are copied to the host tier (vLLM
     * offloads prompt blocks only by default), evicting its least recently used unpinned blocks to make room.
     */
    private void offloadPromptBlocks(SimRequest r) {
        int promptBlocks = Math.min(Math.min(r.numComputed, r.promptLen) / profile.blockSize(), r.blockHashes.length);
        if (promptBlocks <= r.offloadedBlocks) {
            return;
        }
        List<Long> evicted = new ArrayList<>();
        int from = r.offloadedBlocks;
        boolean[] stored = new boolean[promptBlocks - from];
        int count = 0;
        for (int b = from; b < promptBlocks; b++) {
            boolean had = hostTier.contains(r.blockHashes[b]);
            stored[b - from] = hostTier.store(r.blockHashes[b], evicted) && !had;
            count += stored[b - from] ? 1 : 0;
        }
        r.offloadedBlocks = promptBlocks;
        hostTier.touch(r.blockHashes, promptBlocks);
        if (count > 0) {
            long bytes = count * profile.kvBytesPerBlock();
            tierStats.store(bytes, profile.transferSeconds(bytes));
        }
        // vLLM's order: the GPU store is announced when the block is sealed, the copy's once it is stored, then evictions.
        announceStored(r, from, stored, KvCacheEvent.MEDIUM_CPU, selfDescribingHostEvents);
        if (!evicted.isEmpty() && eventSink != KvEventSink.NONE) {
            stepEvents.add(new KvCacheEvent.BlockRemoved(evicted.stream().mapToLong(Long::longValue).toArray(),
                    KvCacheEvent.MEDIUM_CPU, selfDescribingHostEvents ? 0 : null));
        }
    }

    /**
     * Requests whose host-tier load finished wait holding their blocks until the scheduler reaches them; when they
     * (and new requests ahead of them) all need blocks that only they hold and nothing runs that would free any, the
     * engine would stall for good. vLLM's answer to a full pool is preemption: so the waiting holders, last in the queue
     * first, give their blocks back until the head of the queue fits (their full blocks stay cached, found again on
     * their next lookup). A load that is done but was never reached counts as waiting. Returns how many were preempted.
     * Caller holds the lock.
     */
    private int preemptLoadedWaiting(double now) {
        int preempted = 0;
        SimRequest head = waiting.peekFirst();
        Iterator<SimRequest> tail = waiting.descendingIterator();
        while (tail.hasNext() && !headFits(head)) {
            SimRequest r = tail.next();
            if (r.status == SimRequest.Status.LOADING && r.loadReadyAt <= now) {
                // Its copy is done but the scheduler never reached it (it stopped at the head): done now.
                finishLoad(r);
            }
            if (r.status != SimRequest.Status.WAITING || r.numBlocks == 0) {
                continue;
            }
            releaseBlocks(r);
            r.numComputed = 0;
            r.externalTokens = 0;
            preemptions++;
            preempted++;
        }
        return preempted;
    }

    /** Whether the head of the queue would get the blocks its next chunk needs now (approximately: its whole prompt). */
    private boolean headFits(SimRequest head) {
        if (head == null) {
            return true;
        }
        int needed = ceilDiv(head.numTokens(), profile.blockSize()) - head.numBlocks;
        return needed <= pool.freeBlocks();
    }

    /**
     * Holds the engine between steps (true) or lets it go on (false): requests arriving meanwhile wait in its queue.
     * The fault API's {@code pauseEngines}: a test that needs several requests in the engine's queue at once, in the
     * order its scheduler will take them, gets them there whatever the machine's speed.
     */
    public void pause(boolean on) {
        allowSteps(on ? 0 : -1);
    }

    /** Lets a held engine run {@code steps} more steps, then hold again (-1: no limit, as {@code pause(false)}). */
    public void allowSteps(int steps) {
        lock.lock();
        try {
            stepsAllowed = steps;
            workArrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Runs the engine as vLLM's {@code --scheduling-policy priority} (true) or {@code fcfs} (false, the default). */
    public void usePriorityPolicy(boolean on) {
        priorityPolicy = on;
    }

    /**
     * Into the waiting queue: FCFS at its end, or at its front when preempted (vLLM's prepend_request); under the
     * priority policy by (priority, arrival) either way (vllm/v1/core/sched/request_queue.py, PriorityRequestQueue).
     */
    private void enqueue(SimRequest r, boolean preempted) {
        if (!priorityPolicy) {
            if (preempted) {
                waiting.addFirst(r);
            } else {
                waiting.addLast(r);
            }
            return;
        }
        java.util.ListIterator<SimRequest> it = waiting.listIterator();
        while (it.hasNext()) {
            if (ahead(r, it.next())) {
                it.previous();
                break;
            }
        }
        it.add(r);
    }

    private static boolean ahead(SimRequest a, SimRequest b) {
        return a.priority < b.priority || (a.priority == b.priority && a.arrival < b.arrival);
    }

    /** Which running request vLLM preempts: the last admitted (FCFS), or the max by (priority, arrival) (priority policy). */
    static int preemptionVictim(List<SimRequest> running, boolean priorityPolicy) {
        if (!priorityPolicy) {
            return running.size() - 1;
        }
        int last = 0;
        for (int j = 1; j < running.size(); j++) {
            if (ahead(running.get(last), running.get(j))) {
                last = j;
            }
        }
        return last;
    }

    private void preempt(SimRequest r) {
        releaseBlocks(r);
        r.numComputed = 0;
        r.offloadedBlocks = 0;
        r.status = SimRequest.Status.WAITING;
        enqueue(r, true);
        loraState(r, 1, -1);
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
            registerFullBlocks(r, Math.min(r.numComputed / bs, r.blockHashes.length));
            if (hostTier != null) {
                offloadPromptBlocks(r);
            }
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
                tierStats.prefilled(Math.max(0, r.cachedTokens), r.externalTokens, r.promptLen);
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
        loraState(r, 0, -1);
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

    /** Moves {@code r} between its adapter's waiting and running counts; drops an adapter left with none. */
    private void loraState(SimRequest r, int waitingDelta, int runningDelta) {
        if (r.lora == null) {
            return;
        }
        int[] s = loraStates.computeIfAbsent(r.lora.name(), n -> new int[2]);
        s[0] += waitingDelta;
        s[1] += runningDelta;
        if (s[0] <= 0 && s[1] <= 0) {
            loraStates.remove(r.lora.name());
        }
    }

    /** vLLM records its scheduler stats, and with them lora_requests_info, after every step. Caller holds the lock. */
    private void recordLoraInfo() {
        if (loraInfo != null) {
            loraInfo.record(List.copyOf(loraStates.keySet()), System.currentTimeMillis() / 1000.0);
        }
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    /** The requests one step computes and how many tokens each. */
    private static final class Step {
        private final List<SimRequest> requests = new ArrayList<>();
        private int[] tokens = new int[16];
        private int prefillTokens;
        private double prefillAttended;
        private int decodes;
        private long context;
        /** Simulated ms spent making the batch's LoRA adapters resident before the forward pass. */
        private double loraMillis;

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
                // Each token of the chunk attends to the context before it: on average the computed part plus half the chunk.
                prefillAttended += n * (r.numComputed + n / 2.0);
            }
            context += r.numComputed + n;
        }

        /** Takes a request out of the step again (preempted after it was scheduled); returns the tokens it had. */
        int remove(SimRequest r) {
            int at = requests.indexOf(r);
            int n = tokens[at];
            List<SimRequest> keptRequests = new ArrayList<>(requests);
            int[] keptTokens = tokens.clone();
            keptRequests.remove(at);
            System.arraycopy(keptTokens, at + 1, keptTokens, at, keptRequests.size() - at);
            requests.clear();
            prefillTokens = 0;
            prefillAttended = 0;
            decodes = 0;
            context = 0;
            for (int j = 0; j < keptRequests.size(); j++) {
                add(keptRequests.get(j), keptTokens[j]);
            }
            return n;
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
            return p.stepMillis(prefillTokens, prefillAttended, decodes, context);
        }
    }
}
