package io.lmwarden.bench.pool;

import io.lmwarden.bench.workload.ScheduledFault;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;

import io.lmwarden.common.process.ChildProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Simulated replicas each in a JVM of its own ({@code io.lmwarden.sim.SimMain} on this process's class path, i.e.
 * {@code lmw-sim}), so that a scheduled kill is a real {@code kill -9}: the kernel resets the replica's connections,
 * nothing gets to close them. Replica i is started as the in-process pool's replica i would be: same profile,
 * seed + i, fixed output lengths.
 */
final class SimProcessPool implements AutoCloseable {
    /** One replica's JVM: small heap, C1 only and the serial collector, so four of them leave CPU for the engines. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long WARM_UP_NANOS = 3_000_000_000L;
    private static final int WARM_UP_MAX_REQUESTS = 60;

    private record Replica(String id, ChildProcess process, String url) {
    }

    private final List<Replica> replicas;

    private SimProcessPool(List<Replica> replicas) {
        this.replicas = List.copyOf(replicas);
    }

    /** @param profiles the profile of each replica, in order */
    static SimProcessPool start(List<SimProfile> profiles, double timeScale, long seed, int engines, BalancerEra era) {
        List<Replica> started = new ArrayList<>();
        try {
            for (int i = 0; i < profiles.size(); i++) {
                started.add(startOne("sim-" + i, profiles.get(i), timeScale, seed + i, engines, era));
            }
            started.parallelStream().forEach(r -> warmUp(r.url(), profiles.get(0).blockSize()));
        } catch (RuntimeException e) {
            new SimProcessPool(started).close();
            throw e;
        }
        return new SimProcessPool(started);
    }

    /**
     * A fresh JVM runs its first requests several times slower than a warm one, and on a compressed clock that
     * shows up K-fold in the first stage; so each process first serves a few short streams of its own (text no
     * session sends, so nothing the bench measures is cached). Their counters are before every stage's window.
     */
    private static void warmUp(String url, int blockSize) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
                .connectTimeout(java.time.Duration.ofSeconds(5)).build();
        long until = System.nanoTime() + WARM_UP_NANOS;
        for (int i = 0; i < WARM_UP_MAX_REQUESTS && System.nanoTime() < until; i++) {
            String text = ("warm-up " + i + " of " + url + " ").repeat(blockSize * 4);
            String body = "{\"model\":\"" + io.lmwarden.sim.SimOptions.DEFAULT_MODEL + "\",\"stream\":" + (i % 2 == 0)
                    + ",\"max_tokens\":24,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
            try {
                http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/v1/chat/completions"))
                                .timeout(java.time.Duration.ofSeconds(30)).header("content-type", "application/json")
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
                http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/metrics")).GET().build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
            } catch (java.io.IOException e) {
                throw new IllegalStateException("warming up the simulator process at " + url + " failed: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static Replica startOne(String id, SimProfile p, double timeScale, long seed, int engines, BalancerEra era) {
        ChildProcess process = ChildProcess.jvm("io.lmwarden.sim.SimMain", JVM_OPTIONS).name("lmw-bench-" + id)
                .args(List.of("--port", "0", "--profile", p.name(), "--block-size", String.valueOf(p.blockSize()),
                        "--set", ProfileOverrides.assignments(p), "--time-scale", String.valueOf(timeScale), "--seed", String.valueOf(seed),
                        "--output-length", "fixed", "--engines", String.valueOf(engines), "--dp-balancer", era.flag()))
                .start();
        try {
            // lmw-sim prints "sim-0 http://host:port" once it listens; its logs come before.
            String line = process.awaitLine(l -> l.startsWith("sim-0") && l.indexOf(" http://") > 0,
                    Duration.ofSeconds(START_TIMEOUT_SECONDS), false);
            return new Replica(id, process, line.substring(line.indexOf(" http://") + 1).trim());
        } catch (IllegalStateException e) {
            process.kill();
            process.close();
            throw new IllegalStateException("simulator process for " + id + " printed no URL: " + e.getMessage(), e);
        }
    }

    List<String> ids() {
        return replicas.stream().map(Replica::id).toList();
    }

    List<String> urls() {
        return replicas.stream().map(Replica::url).toList();
    }

    int size() {
        return replicas.size();
    }

    long pid(int index) {
        return replicas.get(index).process().pid();
    }

    boolean alive(int index) {
        return replicas.get(index).process().alive();
    }

    /** SIGKILL: no shutdown hook runs, open connections are reset. Waits for the exit. */
    String kill(int index) {
        Replica r = replicas.get(index);
        if (!r.process().alive()) {
            return r.id() + " (pid " + r.process().pid() + ") had already exited";
        }
        try {
            return "killed " + r.id() + " (pid " + r.process().pid() + ") with SIGKILL, exit status " + r.process().kill();
        } catch (IllegalStateException e) {
            return "sent SIGKILL to " + r.id() + " (pid " + r.process().pid() + "); " + e.getMessage();
        }
    }

    /** A kill stops the process; every other fault is armed through the replica's own {@code /sim/faults}. */
    String inject(ScheduledFault fault) {
        if (fault.replica() >= replicas.size()) {
            return "no replica " + fault.replica() + " (the pool has " + replicas.size() + ")";
        }
        return fault.kind() == ScheduledFault.Kind.KILL ? kill(fault.replica()) : SimFaultsApi.arm(urls().get(fault.replica()), fault);
    }

    @Override
    public void close() {
        replicas.forEach(r -> r.process().close());
    }
}
