package io.lmwarden.bench.load;

import io.lmwarden.common.process.ChildProcess;

import io.lmwarden.common.net.LoopbackPorts;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * Many concurrent SSE streams through one router to four simulated replicas, held open together:
 * the simulator (its own JVM, slow decode steps so each stream lasts about a minute), the router (its
 * own JVM, so its file descriptors are its own) and this client (Vert.x, one connection per stream).
 * Counts every stream that did not end with {@code [DONE]}, the peak of streams open at once, the
 * router's open file descriptors, and a {@link ServiceProbe}'s /readyz (all four replicas ready),
 * /healthz and a real request every 250 ms throughout. Traffic goes to 127.0.0.1 only.
 * <p>
 * Run: {@code java -cp bench/target/lmw-bench.jar io.lmwarden.bench.load.StreamHold [streams] [perSecond] [maxTokens] [stepMs] [routers]}
 * (defaults 9500, 100, 100, 1500, 1). Each stream holds one client→router and one router→replica socket in
 * the router process, so under {@code ulimit -n} N one router can hold at most about N/2 streams. With
 * {@code routers} above 1 they run clustered (each its own JVM, static members on loopback) and the
 * streams are spread round robin over them, as a Service spreads connections over router pods.
 */
public final class StreamHold {

    private StreamHold() {
    }

    public static void main(String[] args) throws Exception {
        int streams = args.length > 0 ? Integer.parseInt(args[0]) : 9500;
        int perSecond = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int maxTokens = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        int stepMs = args.length > 3 ? Integer.parseInt(args[3]) : 1500;
        int routerCount = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        System.out.println("start: " + LoadReport.uptime());
        try (ChildProcess sim = ChildJvm.start("sim", "1g", "io.lmwarden.sim.SimMain", List.of("--replicas", "4", "--port", "0",
                "--host", "127.0.0.1", "--profile", "tiny", "--time-scale", "1", "--max-num-seqs", "4096", "--kv-blocks", "200000",
                "--output-length", "fixed", "--set", "stepBaseMs=" + stepMs + ",decodeMsPerSeq=0,contextMsPerKiloToken=0,maxNumBatchedTokens=1000000"))) {
            List<String> replicas = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String line = sim.awaitLine(l -> l.startsWith("sim-") && l.contains("http://"), Duration.ofSeconds(60), true);
                replicas.add(line.substring(0, line.indexOf(' ')) + "=" + ChildJvm.urlIn(line));
            }
            List<ChildProcess> routers = new ArrayList<>();
            try {
                List<Integer> clusterPorts = routerCount > 1 ? LoopbackPorts.freePairs(routerCount) : List.of();
                String members = clusterPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
                int perRouter = (streams + routerCount - 1) / routerCount;
                for (int r = 0; r < routerCount; r++) {
                    List<String> routerArgs = new ArrayList<>(List.of("--replicas", String.join(",", replicas), "--host", "127.0.0.1",
                            "--port", "0",
                            // Thousands of new upstream connections at once complete slowly on a busy machine: slow, not failed.
                            "--max-connections-per-replica", String.valueOf(perRouter), "--connect-timeout", "30s",
                            "--max-client-connections", String.valueOf(perRouter + 100)));
                    if (routerCount > 1) {
                        // Routers acting as one (shared stickiness and load), as a ModelDeployment with router.replicas > 1 runs them.
                        routerArgs.addAll(List.of("--cluster", "static:" + members, "--cluster-bind", "127.0.0.1",
                                "--cluster-port", String.valueOf(clusterPorts.get(r))));
                    }
                    routers.add(ChildJvm.start("router-" + r, "1g", "io.lmwarden.router.RouterMain", routerArgs));
                }
                List<String> urls = new ArrayList<>();
                List<Long> pids = new ArrayList<>();
                for (ChildProcess router : routers) {
                    String url = ChildJvm.urlIn(router.awaitLine(l -> l.contains("LM Warden router on http://"), Duration.ofSeconds(90), true));
                    LoadReport.awaitReady(url, 4);
                    urls.add(url);
                    pids.add(router.pid());
                }
                run(urls, pids, streams, perSecond, maxTokens, stepMs);
                for (ChildProcess router : routers) {
                    router.drainLines().stream().filter(l -> l.contains("SEVERE") || l.contains("Exception")).limit(10)
                            .forEach(l -> System.out.println("[router] " + l));
                }
            } finally {
                routers.forEach(ChildProcess::close);
            }
        }
        System.out.println("end: " + LoadReport.uptime());
    }

    private static void run(List<String> urls, List<Long> routerPids, int streams, int perSecond, int maxTokens, int stepMs)
            throws Exception {
        Vertx vertx = Vertx.vertx();
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false).setConnectTimeout(30_000),
                new PoolOptions().setHttp1MaxSize(streams).setMaxWaitQueueSize(-1));
        AtomicInteger open = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        CountDownLatch finished = new CountDownLatch(streams);
        AtomicReference<String> routerFdsAtPeak = new AtomicReference<>("");
        String probeBody = "{\"model\":\"Qwen/Qwen3-4B-Instruct-2507\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"probe\"}]}";
        long t0 = System.nanoTime();
        List<ServiceProbe> probes = new ArrayList<>();
        urls.forEach(url -> probes.add(new ServiceProbe(url, 4, probeBody, 250)));
        try {
            AtomicInteger sent = new AtomicInteger();
            long tickMs = 20;
            int perTick = Math.max(1, (int) (perSecond * tickMs / 1000));
            vertx.setPeriodic(tickMs, id -> {
                for (int k = 0; k < perTick && sent.get() < streams; k++) {
                    int i = sent.getAndIncrement();
                    // Round robin over the routers, as a Kubernetes Service spreads new connections over router pods.
                    openStream(http, urls.get(i % urls.size()), i, maxTokens, open, peak, completed, errors, finished);
                }
                if (sent.get() >= streams) {
                    vertx.cancelTimer(id);
                }
            });
            long rampMs = 1000L * streams / perSecond;
            long streamMs = (long) maxTokens * stepMs;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(rampMs + streamMs + 180_000);
            int lastPeak = -1;
            while (finished.getCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(1000);
                int p = peak.get();
                if (p > lastPeak) {
                    lastPeak = p;
                    routerFdsAtPeak.set(fds(routerPids));
                }
                System.out.printf("t=%3.0fs sent=%d open=%d peak=%d completed=%d errors=%s routerFds=%s%n", (System.nanoTime() - t0) / 1e9,
                        sent.get(), open.get(), peak.get(), completed.get(), errors, fds(routerPids));
            }
            System.out.printf("RESULT routers=%d streams=%d completed=%d errors=%d %s peakConcurrentOpen=%d routerFdsAtPeak=%s unfinished=%d%n",
                    urls.size(),
                    streams, completed.get(), errors.values().stream().mapToInt(AtomicInteger::get).sum(), errors, peak.get(),
                    routerFdsAtPeak.get(), finished.getCount());
            for (int r = 0; r < probes.size(); r++) {
                System.out.println("RESULT service router-" + r + " " + probes.get(r).summary());
            }
        } finally {
            probes.forEach(ServiceProbe::close);
            http.close().await();
            vertx.close().await();
        }
    }

    private static String fds(List<Long> pids) {
        return pids.stream().map(pid -> String.valueOf(LoadReport.openFds(pid))).collect(Collectors.joining("+"));
    }

    private static void openStream(HttpClient http, String url, int i, int maxTokens, AtomicInteger open, AtomicInteger peak,
                                   AtomicInteger completed, Map<String, AtomicInteger> errors, CountDownLatch finished) {
        String body = "{\"model\":\"Qwen/Qwen3-4B-Instruct-2507\",\"stream\":true,\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hold stream " + i + "\"}]}";
        long sentAt = System.nanoTime();
        http.request(new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url + "/v1/chat/completions")
                        .putHeader("content-type", "application/json").putHeader("X-Session-Id", "hold-" + i))
                .compose(req -> req.send(Buffer.buffer(body)))
                .onFailure(err -> {
                    // When it failed, in 10 s steps from sending: a timer somewhere shows as one step.
                    String cause = "request: " + err.getClass().getSimpleName() + " after ~" + (System.nanoTime() - sentAt) / 10_000_000_000L * 10 + "s";
                    if (!errors.containsKey(cause)) {
                        System.out.println("first " + cause + ": " + err.getMessage());
                    }
                    fail(errors, finished, cause);
                })
                .onSuccess(resp -> {
                    if (resp.statusCode() != 200) {
                        resp.body().onComplete(b -> {
                            String cause = "HTTP " + resp.statusCode();
                            if (!errors.containsKey(cause) && b.succeeded()) {
                                System.out.println("first " + cause + ": " + b.result());
                            }
                            fail(errors, finished, cause);
                        });
                        return;
                    }
                    peak.accumulateAndGet(open.incrementAndGet(), Math::max);
                    StringBuilder tail = new StringBuilder();
                    boolean[] sawError = {false};
                    resp.handler(chunk -> {
                        tail.append(chunk.toString());
                        if (tail.indexOf("\"error\"") >= 0) {
                            sawError[0] = true;
                        }
                        if (tail.length() > 64) {
                            tail.delete(0, tail.length() - 64);
                        }
                    });
                    resp.exceptionHandler(err -> {
                        // The end handler does not run after an exception: count the stream here.
                        open.decrementAndGet();
                        fail(errors, finished, "cut: " + err.getClass().getSimpleName());
                    });
                    resp.endHandler(v -> {
                        open.decrementAndGet();
                        if (sawError[0]) {
                            fail(errors, finished, "error event");
                        } else if (tail.indexOf("[DONE]") < 0) {
                            fail(errors, finished, "ended without [DONE]");
                        } else {
                            completed.incrementAndGet();
                            finished.countDown();
                        }
                    });
                });
    }

    private static void fail(Map<String, AtomicInteger> errors, CountDownLatch finished, String cause) {
        errors.computeIfAbsent(cause, k -> new AtomicInteger()).incrementAndGet();
        finished.countDown();
    }
}
