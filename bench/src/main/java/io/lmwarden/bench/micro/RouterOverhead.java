package io.lmwarden.bench.micro;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.LmWardenRouter;
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
 * The router's added latency for a small non-streaming request on loopback, measured side by side:
 * each iteration sends the same request once straight to a simulated replica and once through the
 * router to that replica (order alternating), so machine noise hits both paths alike.
 * Run: {@code java -cp bench/target/lmw-bench.jar io.lmwarden.bench.micro.RouterOverhead [iterations] [admission]};
 * {@code admission} switches the router's KV-budgeted admission on (below saturation it must add nothing).
 */
public final class RouterOverhead {

    private RouterOverhead() {
    }

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        boolean admission = args.length > 1 && args[1].equals("admission");
        // A fast engine: the request's engine time is small and equal on both paths.
        try (SimCluster sim = SimCluster.start(SimOptions.defaults().withReplicas(1).withProfile(SimProfile.named("tiny"))
                .withTimeScale(1000))) {
            LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(List.of("sim-0=" + sim.urls().get(0)))
                    .with(ServerSettings.HOST, "127.0.0.1").with(AdmissionSettings.ADMISSION, admission));
            try {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                String body = "{\"model\":\"" + SimOptions.DEFAULT_MODEL + "\",\"max_tokens\":1,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]}";
                URI direct = URI.create(sim.urls().get(0) + "/v1/chat/completions");
                URI routed = URI.create(router.url() + "/v1/chat/completions");
                Histogram d = new Histogram(3_600_000_000L, 3);
                Histogram r = new Histogram(3_600_000_000L, 3);
                for (int i = 0; i < 500; i++) {
                    send(http, direct, body);
                    send(http, routed, body);
                }
                for (int i = 0; i < iterations; i++) {
                    if ((i & 1) == 0) {
                        d.recordValue(send(http, direct, body));
                        r.recordValue(send(http, routed, body));
                    } else {
                        r.recordValue(send(http, routed, body));
                        d.recordValue(send(http, direct, body));
                    }
                }
                System.out.printf("iterations=%d (after 500 warm-up pairs), admission %s%n", iterations, admission ? "on" : "off");
                System.out.printf("direct : p50 %.3f ms  p99 %.3f ms%n", d.getValueAtPercentile(50) / 1e3, d.getValueAtPercentile(99) / 1e3);
                System.out.printf("router : p50 %.3f ms  p99 %.3f ms%n", r.getValueAtPercentile(50) / 1e3, r.getValueAtPercentile(99) / 1e3);
                System.out.printf("added  : p50 %.3f ms  p99 %.3f ms%n",
                        (r.getValueAtPercentile(50) - d.getValueAtPercentile(50)) / 1e3,
                        (r.getValueAtPercentile(99) - d.getValueAtPercentile(99)) / 1e3);
            } finally {
                router.close();
            }
        }
    }

    /** One request; returns its latency in microseconds. */
    private static long send(HttpClient http, URI uri, String body) throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        long micros = (System.nanoTime() - t0) / 1000;
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + resp.statusCode() + ": " + resp.body());
        }
        return micros;
    }
}
