package io.lmwarden.bench.micro;

import io.lmwarden.router.kvevents.OfflineCacheView;
import io.lmwarden.router.kvevents.ViewStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * Heap and CPU of the KV-event cache views: R replicas each holding T tokens of KV (sessions of 100k tokens, stored
 * as vLLM announces a prefill: BlockStored batches of 32 blocks, each continuing the previous), fed as msgpack
 * payloads through the decoder. Reports the live heap per replica (full GCs before and after), the index's own
 * count of its arrays, and the CPU per announced block (decode + apply; one pass, so it includes the JIT's warm-up:
 * {@link KvCacheViewPath} has the steady state).
 * Run: {@code java -Xmx4g -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.KvIndexFootprint [replicas] [tokens]}.
 */
public final class KvIndexFootprint {

    private static final int SESSION_TOKENS = 100_000;
    private static final int BLOCKS_PER_BATCH = 32;

    private KvIndexFootprint() {
    }

    public static void main(String[] args) {
        int replicas = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int tokensPerReplica = args.length > 1 ? Integer.parseInt(args[1]) : 400_000;
        int sessionsPerReplica = Math.max(1, tokensPerReplica / SESSION_TOKENS);
        // The payloads are built first and kept out of the measured heap delta.
        List<List<byte[]>> payloads = new ArrayList<>();
        long blocks = 0;
        for (int r = 0; r < replicas; r++) {
            List<byte[]> forReplica = new ArrayList<>();
            for (int s = 0; s < sessionsPerReplica; s++) {
                int session = r * sessionsPerReplica + s;
                int[] tokens = KvEventPayloads.sessionTokens(session, SESSION_TOKENS);
                int n = SESSION_TOKENS / KvEventPayloads.BLOCK;
                long[] hashes = KvEventPayloads.engineHashes(session, n);
                for (int b = 0; b < n; b += BLOCKS_PER_BATCH) {
                    int count = Math.min(BLOCKS_PER_BATCH, n - b);
                    forReplica.add(KvEventPayloads.stored(hashes, b, count, b == 0 ? 0 : hashes[b - 1], b > 0,
                            tokens));
                }
                blocks += n;
            }
            payloads.add(forReplica);
        }
        long before = LiveHeap.bytes();
        List<OfflineCacheView> views = new ArrayList<>();
        long cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        for (int r = 0; r < replicas; r++) {
            OfflineCacheView view = new OfflineCacheView("replica-" + r, 65_536);
            for (byte[] p : payloads.get(r)) {
                view.accept(p);
            }
            views.add(view);
        }
        long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0;
        long after = LiveHeap.bytes(); // the payloads are still reachable, so they cancel out
        if (payloads.size() != replicas) {
            throw new IllegalStateException();
        }
        ViewStatus one = views.get(0).view().status();
        long indexBytes = views.stream().mapToLong(v -> v.view().status().indexBytes()).sum();
        System.out.printf("replicas=%d tokens/replica=%,d blocks/replica=%,d (block %d)%n", replicas,
                tokensPerReplica, one.gpuBlocks(), one.blockSize());
        System.out.printf("live heap: %,d bytes in all, %,d per replica, %.1f per block%n", after - before,
                (after - before) / replicas, (double) (after - before) / blocks);
        System.out.printf("index arrays (its own count): %,d per replica%n", indexBytes / replicas);
        System.out.printf("decode+apply: %.0f ns CPU per announced block, %.1f ms CPU per replica%n",
                (double) cpu / blocks, cpu / 1e6 / replicas);
        System.out.printf("(JVM %s, %s)%n", System.getProperty("java.vm.version"),
                java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    }
}
