package io.lmwarden.bench.micro;

import io.lmwarden.router.kvevents.BlockKeys;
import io.lmwarden.router.kvevents.CachedPrefix;
import io.lmwarden.router.kvevents.OfflineCacheView;
import io.lmwarden.router.kvevents.ReplicaCacheView;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The CPU of one replica's KV-event cache view, on a view holding 400k tokens (four 100k-token sessions, block 16):
 * {@code keys100k}, the router's block keys of a 100k-token prompt from its token ids; {@code lookup100k}, what the
 * replica holds of it (placement asks this once per candidate replica, so 64 replicas cost 64 of these);
 * {@code keysAndLookup100k}, both; {@code storeAndRemove32}, decoding and applying a 32-block BlockStored and the
 * BlockRemoved that evicts it (the subscriber thread's work per prefill chunk).
 * <pre>
 * java -cp bench/target/lmw-bench.jar org.openjdk.jmh.Main KvCacheViewPath -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class KvCacheViewPath {

    private static final int SESSION_TOKENS = 100_000;

    private ReplicaCacheView view;
    private OfflineCacheView offline;
    private int[] prompt;
    private long[] keys;
    private byte[] store32;
    private byte[] remove32;

    @Setup
    public void setUp() {
        offline = new OfflineCacheView("replica-0", 65_536);
        for (int s = 0; s < 4; s++) {
            int[] tokens = KvEventPayloads.sessionTokens(s, SESSION_TOKENS);
            int n = SESSION_TOKENS / KvEventPayloads.BLOCK;
            long[] hashes = KvEventPayloads.engineHashes(s, n);
            for (int b = 0; b < n; b += 32) {
                offline.accept(KvEventPayloads.stored(hashes, b, Math.min(32, n - b), b == 0 ? 0 : hashes[b - 1],
                        b > 0, tokens));
            }
        }
        view = offline.view();
        // Session 0's prompt plus a new turn of 37 tokens: the next step of that agent.
        prompt = Arrays.copyOf(KvEventPayloads.sessionTokens(0, SESSION_TOKENS), SESSION_TOKENS + 37);
        keys = BlockKeys.chain(BlockKeys.root(), prompt, KvEventPayloads.BLOCK);
        CachedPrefix hit = view.lookup(keys);
        if (hit.gpuBlocks() != SESSION_TOKENS / KvEventPayloads.BLOCK) {
            throw new IllegalStateException("the view does not hold the session: " + hit);
        }
        int[] other = KvEventPayloads.sessionTokens(99, 32 * KvEventPayloads.BLOCK);
        long[] otherHashes = KvEventPayloads.engineHashes(99, 32);
        store32 = KvEventPayloads.stored(otherHashes, 0, 32, 0, false, other);
        remove32 = KvEventPayloads.removed(otherHashes, 0, 32);
    }

    @Benchmark
    public long[] keys100k() {
        return BlockKeys.chain(BlockKeys.root(), prompt, KvEventPayloads.BLOCK);
    }

    @Benchmark
    public CachedPrefix lookup100k() {
        return view.lookup(keys);
    }

    @Benchmark
    public CachedPrefix keysAndLookup100k() {
        return view.lookup(prompt, null, null);
    }

    @Benchmark
    public ReplicaCacheView storeAndRemove32() {
        offline.accept(store32);
        offline.accept(remove32);
        return view;
    }
}
