package io.lmwarden.bench.micro;

import org.openjdk.jmh.infra.Blackhole;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * {@link RequestPath}'s benchmarks timed by the thread's own CPU time instead of the wall clock: on a
 * machine other work keeps busy (load far above its cores), a JMH score is mostly time spent waiting
 * for a core, while CPU time per operation stays what the code costs. Same states, same operations;
 * per case a warm-up, then the median of five rounds of CPU ns/op and allocated bytes/op (the thread's
 * own; GC threads are not counted).
 * Run: {@code java -Xms3g -Xmx3g -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.RequestPathCpu [ops-per-round]
 * [apis] [policies]} (defaults: 20000, {@code chat,anthropic}, all four policies; lists comma-separated).
 */
public final class RequestPathCpu {

    private RequestPathCpu() {
    }

    @FunctionalInterface
    interface Op {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        List<String> apis = args.length > 1 ? List.of(args[1].split(",")) : List.of("chat", "anthropic");
        List<String> policies = args.length > 2 ? List.of(args[2].split(","))
                : List.of("affinity+admission", "affinity", "cost", "least-loaded");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Blackhole bh = new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        RequestPath bench = new RequestPath();
        System.out.printf("%-14s %-10s %-19s %12s %12s%n", "benchmark", "api", "policy", "cpu ns/op", "bytes/op");
        for (String api : apis) {
            RequestPath.Bodies b = new RequestPath.Bodies();
            b.api = api;
            b.setUp();
            report("facts", api, "", ops, threads, () -> bh.consume(bench.facts(b)));
            report("sessionKeyHash", api, "", ops, threads, () -> bh.consume(bench.sessionKeyHash(b)));
            for (String policy : policies) {
                RequestPath.Router r = new RequestPath.Router();
                r.policy = policy;
                r.setUp();
                report("placeSticky", api, policy, ops, threads, () -> bench.placeSticky(b, r, bh));
                report("requestSticky", api, policy, ops, threads, () -> bh.consume(bench.requestSticky(b, r)));
                report("placeNew", api, policy, ops, threads, () -> bench.placeNew(b, r, bh));
                report("requestNew", api, policy, ops, threads, () -> bh.consume(bench.requestNew(b, r)));
                if (r.queued > 0) {
                    System.out.printf("  (%d steps would have queued: the admission figures include the queue)%n", r.queued);
                }
                r.metrics.close();
            }
        }
    }

    private static void report(String name, String api, String policy, int ops, com.sun.management.ThreadMXBean threads, Op op)
            throws Exception {
        long id = Thread.currentThread().getId();
        for (int i = 0; i < ops * 2; i++) {
            op.run();
        }
        double[] cpu = new double[5];
        double[] bytes = new double[5];
        for (int round = 0; round < 5; round++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long a0 = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < ops; i++) {
                op.run();
            }
            cpu[round] = (double) (threads.getCurrentThreadCpuTime() - c0) / ops;
            bytes[round] = (double) (threads.getThreadAllocatedBytes(id) - a0) / ops;
        }
        java.util.Arrays.sort(cpu);
        java.util.Arrays.sort(bytes);
        System.out.printf("%-14s %-10s %-19s %12.0f %12.0f%n", name, api, policy, cpu[2], bytes[2]);
    }
}
