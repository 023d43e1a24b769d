package io.lmwarden.bench.micro;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * {@link KvCacheViewPath}'s operations timed by the thread's own CPU time instead of the wall clock, for a machine
 * that others keep busy: per operation a warm-up, then the median of five rounds of CPU µs/op and allocated
 * bytes/op. Run: {@code java -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.KvCacheViewCpu [ops]}.
 */
public final class KvCacheViewCpu {

    private KvCacheViewCpu() {
    }

    public static void main(String[] args) {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        KvCacheViewPath path = new KvCacheViewPath();
        path.setUp();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        report("keys100k", ops, threads, path::keys100k);
        report("lookup100k", ops, threads, path::lookup100k);
        report("keysAndLookup100k", ops, threads, path::keysAndLookup100k);
        report("storeAndRemove32", ops, threads, path::storeAndRemove32);
    }

    private static void report(String name, int ops, com.sun.management.ThreadMXBean threads, Supplier<?> op) {
        for (int i = 0; i < ops * 5; i++) {
            op.get();
        }
        double[] cpu = new double[5];
        double[] alloc = new double[5];
        long id = Thread.currentThread().getId();
        for (int round = 0; round < 5; round++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long a0 = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < ops; i++) {
                op.get();
            }
            cpu[round] = (threads.getCurrentThreadCpuTime() - c0) / 1e3 / ops;
            alloc[round] = (double) (threads.getThreadAllocatedBytes(id) - a0) / ops;
        }
        Arrays.sort(cpu);
        Arrays.sort(alloc);
        System.out.printf("%-20s %10.1f µs CPU/op %12.0f B/op%n", name, cpu[2], alloc[2]);
    }
}
