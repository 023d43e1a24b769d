package io.lmwarden.bench.load;

import io.lmwarden.common.process.ChildProcess;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.bench.micro.LiveHeap;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.stats.RequestLog;
import io.vertx.core.Promise;
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
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The router's whole per-session state for N sessions, as real requests build it: N chat requests,
 * each with its own Claude-Code-style session id (a UUID), through a router in this JVM to four
 * simulated replicas in another (so their state is not counted). The live heap after full GCs,
 * before the first session and after the last, gives what the sessions cost together — the affinity
 * table, the session log (bounded), admission's residency, the prefix indexes, metrics, whatever
 * else keeps per-session state — and the run shows that N sessions fit in the {@code -Xmx} it was given.
 * <p>
 * Run: {@code java -Xmx1g -cp bench/target/lmw-bench.jar io.lmwarden.bench.load.SessionHeap [sessions] [concurrency]}
 * (defaults 1000000, 32).
 */
public final class SessionHeap {

    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    /** Keeps the request log's logger (and the level set on it) alive: one line per request would flood stderr. */
    private static final Logger REQUEST_LOG = Logger.getLogger(RequestLog.LOGGER);

    private SessionHeap() {
    }

    public static void main(String[] args) throws Exception {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        System.out.println("start: " + LoadReport.uptime());
        // The simulated replicas run in a JVM of their own, so that only the router's state is measured here. (Until
        // 2026-12-01 a one-engine simulator kept every request it served — 233,883 SimRequests after 234k requests,
        // by jmap — which is why its heap is generous.)
        try (ChildProcess sim = ChildJvm.start("sim", "6g", "io.lmwarden.sim.SimMain", List.of("--replicas", "4", "--port", "0",
                "--host", "127.0.0.1", "--profile", "tiny", "--time-scale", "1000", "--output-length", "fixed"))) {
            List<String> replicas = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String line = sim.awaitLine(l -> l.startsWith("sim-") && l.contains("http://"), Duration.ofSeconds(60), false);
                replicas.add(line.substring(0, line.indexOf(' ')) + "=" + ChildJvm.urlIn(line));
            }
            // Defaults throughout: affinityMaxEntries is 1,000,000, so beyond that the table evicts.
            LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(replicas).with(ServerSettings.HOST, "127.0.0.1"));
            REQUEST_LOG.setLevel(Level.WARNING);
            Vertx vertx = Vertx.vertx();
            HttpClient http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                    new PoolOptions().setHttp1MaxSize(concurrency));
            try {
                // Warm-up with sessions that count too: JIT, pools, the session log's 2,000 slots and the replicas' caches fill first.
                send(http, router.url(), "warmup-", 20_000, concurrency);
                long before = LiveHeap.bytes();
                long t0 = System.nanoTime();
                Map<String, AtomicInteger> errors = send(http, router.url(), "", sessions, concurrency);
                double seconds = (System.nanoTime() - t0) / 1e9;
                long after = LiveHeap.bytes();
                String entries = metric(http, router.url(), "lmw_affinity_entries");
                System.out.printf("RESULT sessions=%d (+20000 warm-up) in %.0f s (%.0f/s) errors=%s affinityEntries=%s%n", sessions, seconds,
                        sessions / seconds, errors, entries);
                System.out.printf("RESULT live heap before=%,d after=%,d delta=%,d bytes = %.0f bytes/session; -Xmx %,d MB%n", before, after,
                        after - before, (double) (after - before) / sessions, Runtime.getRuntime().maxMemory() >> 20);
            } finally {
                http.close().await();
                vertx.close().await();
                router.close();
            }
        }
        System.out.println("end: " + LoadReport.uptime());
    }

    /** {@code n} requests, each a new session, {@code concurrency} at a time; returns the failures by cause. */
    private static Map<String, AtomicInteger> send(HttpClient http, String url, String prefix, int n, int concurrency) throws Exception {
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        AtomicLong next = new AtomicLong();
        AtomicLong done = new AtomicLong();
        Promise<Void> all = Promise.promise();
        long t0 = System.nanoTime();
        for (int c = 0; c < concurrency; c++) {
            sendNext(http, url, prefix, n, next, done, errors, all, t0);
        }
        all.future().toCompletionStage().toCompletableFuture().get();
        return errors;
    }

    private static void sendNext(HttpClient http, String url, String prefix, int n, AtomicLong next, AtomicLong done,
                                 Map<String, AtomicInteger> errors, Promise<Void> all, long t0) {
        long i = next.getAndIncrement();
        if (i >= n) {
            return;
        }
        String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"s" + i + "\"}]}";
        http.request(new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url + "/v1/chat/completions")
                        .putHeader("content-type", "application/json")
                        .putHeader("X-Claude-Code-Session-Id", prefix + UUID.randomUUID()))
                .compose(req -> req.send(Buffer.buffer(body)))
                .compose(resp -> resp.body().map(b -> resp.statusCode()))
                .onComplete(ar -> {
                    if (ar.failed()) {
                        errors.computeIfAbsent(ar.cause().getClass().getSimpleName(), k -> new AtomicInteger()).incrementAndGet();
                    } else if (ar.result() != 200) {
                        errors.computeIfAbsent("HTTP " + ar.result(), k -> new AtomicInteger()).incrementAndGet();
                    }
                    long d = done.incrementAndGet();
                    if (d % 100_000 == 0) {
                        System.out.printf("%s%,d sessions in %.0f s%n", prefix, d, (System.nanoTime() - t0) / 1e9);
                    }
                    if (d == n) {
                        all.complete();
                    } else {
                        sendNext(http, url, prefix, n, next, done, errors, all, t0);
                    }
                });
    }

    private static String metric(HttpClient http, String url, String name) throws Exception {
        String text = http.request(new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url + "/metrics"))
                .compose(req -> req.send()).compose(resp -> resp.body()).map(Buffer::toString)
                .toCompletionStage().toCompletableFuture().get();
        return text.lines().filter(l -> l.startsWith(name)).findFirst().map(l -> l.substring(l.lastIndexOf(' ') + 1)).orElse("?");
    }
}
