package io.lmwarden.bench.micro;

import io.lmwarden.router.config.ClusterSettings;
import io.lmwarden.router.cluster.InfinispanCluster;
import io.lmwarden.router.placement.pins.SessionPins;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Heap bytes per pinned session on a clustered router pod: one cluster member on loopback claims N
 * Claude-Code-style sessions (UUID ids, a model name, 4 replicas), which puts each pin in the
 * replicated cache (every pod holds that) and in the member's own table (the pod that served it).
 * Live heap after full GCs, before and after.
 * Run: {@code java -Xmx4g -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.ClusteredPinsFootprint [N]}.
 */
public final class ClusteredPinsFootprint {

    private ClusteredPinsFootprint() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        String[] replicas = {"qwen-vllm-0", "qwen-vllm-1", "qwen-vllm-2", "qwen-vllm-3"};
        String model = "Qwen/Qwen3-4B-Instruct-2507";
        int port = io.lmwarden.common.net.LoopbackPorts.freePairs(1).get(0);
        try (InfinispanCluster member = InfinispanCluster.start(
                ClusterSettings.single().withStatic(List.of("127.0.0.1:" + port), port), n, Duration.ofHours(2))) {
            SessionPins pins = member.pins();
            long before = LiveHeap.bytes();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                pins.claim(model, UUID.randomUUID().toString(), Optional.empty(), replicas[i & 3], System.nanoTime()).toCompletableFuture().join();
            }
            long fillNanos = System.nanoTime() - t0;
            long after = LiveHeap.bytes();
            System.out.printf("pins=%d  heap delta=%,d bytes  bytes/pin=%.1f  claim=%.0f ns/pin%n",
                    pins.size(), after - before, (double) (after - before) / n, (double) fillNanos / n);
            System.out.printf("(JVM %s, %s)%n", System.getProperty("java.vm.version"),
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        }
    }

}
