package io.lmwarden.bench.micro;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.bench.pool.LoopbackRouters;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import org.HdrHistogram.Histogram;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * What clustering adds to a request, side by side in one run: a router alone and the first of three
 * routers clustered over loopback, in front of the same fast simulated replica. Each iteration sends
 * one request through each (order alternating). Pinned: a session that another member of the
 * cluster placed (so its pin came over the cluster), then sticky. New: a fresh session id every
 * request, which costs the clustered router its {@code putIfAbsent}.
 * Run: {@code java -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.ClusterOverhead [iterations]}.
 */
public final class ClusterOverhead {

    private ClusterOverhead() {
    }

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        try (SimCluster sim = SimCluster.start(SimOptions.defaults().withReplicas(1).withProfile(SimProfile.named("tiny"))
                .withTimeScale(1000))) {
            RouterConfig base = RouterConfig.forReplicas(List.of("sim-0=" + sim.urls().get(0))).with(ServerSettings.HOST, "127.0.0.1");
            try (LoopbackRouters alone = LoopbackRouters.start(base, 1, "unused");
                 LoopbackRouters cluster = LoopbackRouters.start(base, 3, "lmw-cluster-overhead-" + ProcessHandle.current().pid())) {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                URI single = URI.create(alone.urls().get(0) + "/v1/messages");
                URI clustered = URI.create(cluster.urls().get(0) + "/v1/messages");
                URI otherMember = URI.create(cluster.urls().get(1) + "/v1/messages");
                send(http, single, "bench-pinned");
                send(http, otherMember, "bench-pinned");
                Thread.sleep(200);
                Histogram ps = new Histogram(3_600_000_000L, 3);
                Histogram pc = new Histogram(3_600_000_000L, 3);
                Histogram ns = new Histogram(3_600_000_000L, 3);
                Histogram nc = new Histogram(3_600_000_000L, 3);
                for (int i = 0; i < 500; i++) {
                    send(http, single, "bench-pinned");
                    send(http, clustered, "bench-pinned");
                    send(http, single, "warm-s-" + i);
                    send(http, clustered, "warm-c-" + i);
                }
                for (int i = 0; i < iterations; i++) {
                    boolean singleFirst = (i & 1) == 0;
                    for (int k = 0; k < 2; k++) {
                        if ((k == 0) == singleFirst) {
                            ps.recordValue(send(http, single, "bench-pinned"));
                            ns.recordValue(send(http, single, "new-s-" + i));
                        } else {
                            pc.recordValue(send(http, clustered, "bench-pinned"));
                            nc.recordValue(send(http, clustered, "new-c-" + i));
                        }
                    }
                }
                System.out.printf("iterations=%d (after 500 warm-up rounds); 3 routers clustered over loopback vs 1 router alone%n", iterations);
                row("pinned, router alone", ps);
                row("pinned, clustered", pc);
                added("pinned", ps, pc);
                row("new session, router alone", ns);
                row("new session, clustered", nc);
                added("new session", ns, nc);
            }
        }
    }

    private static void row(String what, Histogram h) {
        System.out.printf("%-28s p50 %.3f ms  p99 %.3f ms%n", what, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3);
    }

    private static void added(String what, Histogram alone, Histogram clustered) {
        System.out.printf("%-28s p50 %+.3f ms  p99 %+.3f ms%n", "added by the cluster, " + what,
                (clustered.getValueAtPercentile(50) - alone.getValueAtPercentile(50)) / 1e3,
                (clustered.getValueAtPercentile(99) - alone.getValueAtPercentile(99)) / 1e3);
    }

    /** One small Anthropic request of the given session; returns its latency in microseconds. */
    private static long send(HttpClient http, URI uri, String session) throws Exception {
        String body = "{\"model\":\"" + SimOptions.DEFAULT_MODEL + "\",\"max_tokens\":1,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]}";
        long t0 = System.nanoTime();
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                        .header("content-type", "application/json").header("anthropic-version", "2023-06-01")
                        .header("X-Claude-Code-Session-Id", session)
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        long micros = (System.nanoTime() - t0) / 1000;
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + resp.statusCode() + ": " + resp.body());
        }
        return micros;
    }

}
