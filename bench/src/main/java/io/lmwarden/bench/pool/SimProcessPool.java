package io.lmwarden.bench.pool;

import io.lmwarden.bench.workload.ScheduledFault;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;

import io.lmwarden.common.net.LoopbackPorts;
import io.lmwarden.common.process.ChildProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Simulated replicas each in a JVM of its own ({@code io.lmwarden.sim.SimMain} on this process's class path, i.e.
 * {@code lmw-sim}), so that a scheduled kill is a real {@code kill -9}: the kernel resets the replica's connections,
 * nothing gets to close them. Replica i is started as the in-process pool's replica i would be: same profile,
 * seed + i, fixed output lengths.
 * <p>
 * Each replica keeps one loopback port for the pool's life, like a StatefulSet pod keeps its name: a replica whose
 * process is stopped and started again ({@link #stop}, {@link #startAgain}: a new image in a rolling upgrade) comes
 * back at the same URL, and one started only later ({@code deferred}: a scale-up) was listed at its URL from the start.
 * A replica started with the pool binds port 0 and the port it reports is its port from then on: no other process
 * can take it between a probe and the bind. (A replica started later comes back on a port it or a probe held before,
 * which another process could take meanwhile: the price of a URL that stays, as a pod's name does.)
 */
final class SimProcessPool implements AutoCloseable {
    /** One replica's JVM: small heap, C1 only and the serial collector, so four of them leave CPU for the engines. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long WARM_UP_NANOS = 3_000_000_000L;
    private static final int WARM_UP_MAX_REQUESTS = 60;

    /** One replica: its id, port (once its first process bound it) and profile for good; its process, when one runs. */
    private static final class Slot {
        final String id;
        /** 0 until the first process reports the port it bound. */
        volatile int port;
        final SimProfile profile;
        final long seed;
        volatile ChildProcess process;

        Slot(String id, int port, SimProfile profile, long seed) {
            this.id = id;
            this.port = port;
            this.profile = profile;
            this.seed = seed;
        }

        String url() {
            return "http://127.0.0.1:" + port;
        }
    }

    private final List<Slot> slots;
    private final double timeScale;
    private final int engines;
    private final BalancerEra era;

    private SimProcessPool(List<Slot> slots, double timeScale, int engines, BalancerEra era) {
        this.slots = List.copyOf(slots);
        this.timeScale = timeScale;
        this.engines = engines;
        this.era = era;
    }

    /** @param profiles the profile of each replica, in order */
    static SimProcessPool start(List<SimProfile> profiles, double timeScale, long seed, int engines, BalancerEra era) {
        return start(profiles, timeScale, seed, engines, era, Set.of());
    }

    /**
     * @param deferred replicas whose process is not started now (a later {@code add replica I}): their port is kept and
     *                 listed, nothing answers there yet
     */
    static SimProcessPool start(List<SimProfile> profiles, double timeScale, long seed, int engines, BalancerEra era,
                                Set<Integer> deferred) {
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < profiles.size(); i++) {
            // A deferred replica is listed before anything listens: its port is probed now and bound only at its start.
            slots.add(new Slot("sim-" + i, deferred.contains(i) ? LoopbackPorts.free() : 0, profiles.get(i), seed + i));
        }
        SimProcessPool pool = new SimProcessPool(slots, timeScale, engines, era);
        try {
            for (int i = 0; i < slots.size(); i++) {
                if (!deferred.contains(i)) {
                    pool.launch(slots.get(i));
                }
            }
            slots.parallelStream().filter(s -> s.process != null).forEach(s -> warmUp(s.url(), profiles.get(0).blockSize()));
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        return pool;
    }

    /**
     * A fresh JVM runs its first requests several times slower than a warm one, and on a compressed clock that
     * shows up K-fold in the first stage; so each process first serves a few short streams of its own (text no
     * session sends, so nothing the bench measures is cached). Their counters are before every stage's window; a
     * replica started during a run (an upgrade, a scale-up) warms up before it is taken into rotation, as vLLM
     * captures its CUDA graphs before its /health answers.
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

    /** Starts the slot's process on its port and waits until it listens. */
    private void launch(Slot slot) {
        SimProfile p = slot.profile;
        ChildProcess process = ChildProcess.jvm("io.lmwarden.sim.SimMain", JVM_OPTIONS).name("lmw-bench-" + slot.id)
                .args(List.of("--port", String.valueOf(slot.port), "--host", "127.0.0.1", "--profile", p.name(), "--block-size",
                        String.valueOf(p.blockSize()), "--set", ProfileOverrides.assignments(p), "--time-scale", String.valueOf(timeScale),
                        "--seed", String.valueOf(slot.seed), "--output-length", "fixed", "--engines", String.valueOf(engines),
                        "--dp-balancer", era.flag()))
                .start();
        try {
            // lmw-sim prints "sim-0 http://host:port" once it listens (the port it bound); its logs come before.
            String listening = process.awaitLine(l -> l.startsWith("sim-0") && l.indexOf(" http://") > 0,
                    Duration.ofSeconds(START_TIMEOUT_SECONDS), false);
            slot.port = java.net.URI.create(listening.substring(listening.indexOf(" http://") + 1).trim()).getPort();
            slot.process = process;
        } catch (IllegalStateException e) {
            process.kill();
            process.close();
            throw new IllegalStateException("simulator process for " + slot.id + " printed no URL: " + e.getMessage(), e);
        }
    }

    List<String> ids() {
        return slots.stream().map(s -> s.id).toList();
    }

    List<String> urls() {
        return slots.stream().map(Slot::url).toList();
    }

    int size() {
        return slots.size();
    }

    long pid(int index) {
        return process(index).pid();
    }

    boolean alive(int index) {
        ChildProcess p = slots.get(index).process;
        return p != null && p.alive();
    }

    private ChildProcess process(int index) {
        ChildProcess p = slots.get(index).process;
        if (p == null) {
            throw new IllegalStateException(slots.get(index).id + " has no process");
        }
        return p;
    }

    /** SIGKILL: no shutdown hook runs, open connections are reset. Waits for the exit. */
    String kill(int index) {
        Slot s = slots.get(index);
        ChildProcess p = s.process;
        if (p == null || !p.alive()) {
            return s.id + (p == null ? " has no process" : " (pid " + p.pid() + ") had already exited");
        }
        try {
            return "killed " + s.id + " (pid " + p.pid() + ") with SIGKILL, exit status " + p.kill();
        } catch (IllegalStateException e) {
            return "sent SIGKILL to " + s.id + " (pid " + p.pid() + "); " + e.getMessage();
        }
    }

    /**
     * SIGTERM, as the kubelet ends a pod (SIGKILL after ChildProcess's grace); the simulator closes its servers.
     * Returns what happened, for the progress line.
     */
    String stop(int index) {
        Slot s = slots.get(index);
        ChildProcess p = s.process;
        if (p == null) {
            return s.id + " has no process";
        }
        long pid = p.pid();
        long started = System.nanoTime();
        p.close();
        s.process = null;
        return "stopped " + s.id + " (pid " + pid + ") with SIGTERM in " + (System.nanoTime() - started) / 1_000_000 + " ms wall"
                + (p.alive() ? ", still alive" : "");
    }

    /**
     * Starts a new process for the replica on its port (a new image: an empty cache, counters from zero), warmed up
     * before it returns. Returns what happened, for the progress line.
     */
    String startAgain(int index) {
        Slot s = slots.get(index);
        if (s.process != null && s.process.alive()) {
            return s.id + " (pid " + s.process.pid() + ") is running already";
        }
        launch(s);
        warmUp(s.url(), s.profile.blockSize());
        return "started " + s.id + " (pid " + s.process.pid() + ") on " + s.url();
    }

    /** A kill stops the process; every other fault is armed through the replica's own {@code /sim/faults}. */
    String inject(ScheduledFault fault) {
        if (fault.replica() >= slots.size()) {
            return "no replica " + fault.replica() + " (the pool has " + slots.size() + ")";
        }
        return fault.kind() == ScheduledFault.Kind.KILL ? kill(fault.replica()) : SimFaultsApi.arm(urls().get(fault.replica()), fault);
    }

    @Override
    public void close() {
        slots.forEach(s -> {
            ChildProcess p = s.process;
            if (p != null) {
                p.close();
            }
        });
    }
}
