package io.lmwarden.bench.micro;

import io.lmwarden.router.placement.pins.AffinityTable;

import java.time.Duration;
import java.util.UUID;

/**
 * Heap bytes per affinity-table entry: fills a table with N sessions keyed like Claude Code's
 * (a UUID session id, a model name), and compares the live heap after full GCs before and after.
 * Run: {@code java -Xmx2g -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.AffinityTableFootprint [N]}.
 */
public final class AffinityTableFootprint {

    private AffinityTableFootprint() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        String[] replicas = {"qwen-vllm-0", "qwen-vllm-1", "qwen-vllm-2", "qwen-vllm-3"};
        String model = "Qwen/Qwen3-4B-Instruct-2507";
        long before = LiveHeap.bytes();
        AffinityTable table = new AffinityTable(n, Duration.ofHours(2));
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            // Session ids arrive as fresh strings from the request, as they do in the router.
            table.pin(model, UUID.randomUUID().toString(), replicas[i & 3], System.nanoTime());
        }
        long fillNanos = System.nanoTime() - t0;
        long after = LiveHeap.bytes();
        System.out.printf("entries=%d  heap delta=%,d bytes  bytes/entry=%.1f  fill=%.0f ns/entry%n",
                table.size(), after - before, (double) (after - before) / table.size(), (double) fillNanos / n);
        System.out.printf("(JVM %s, compressed oops %s)%n", System.getProperty("java.vm.version"),
                java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

}
