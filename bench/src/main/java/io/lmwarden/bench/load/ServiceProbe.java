package io.lmwarden.bench.load;

import org.HdrHistogram.Histogram;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks the router, on its own connection every {@code periodMs} while a load runs: {@code /readyz}
 * (200 with every replica ready), {@code /healthz}, and, when given, one real chat request. Each miss
 * is kept with its time, so a figure says when service stopped, not just that it did.
 */
final class ServiceProbe implements AutoCloseable {

    private static final Pattern READY_REPLICAS = Pattern.compile("\"readyReplicas\":(\\d+)");

    private final String routerUrl;
    private final int expectedReplicas;
    private final String chatBody;
    private final long periodMs;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Histogram latencyMicros = new Histogram(60_000_000L, 3);
    private final List<String> misses = new ArrayList<>();
    private final Thread thread;
    private final long startNanos = System.nanoTime();
    private volatile boolean running = true;
    private int probes;
    private int minReady = Integer.MAX_VALUE;

    /** @param chatBody a real request sent each period too, or null */
    ServiceProbe(String routerUrl, int expectedReplicas, String chatBody, long periodMs) {
        this.routerUrl = routerUrl;
        this.expectedReplicas = expectedReplicas;
        this.chatBody = chatBody;
        this.periodMs = periodMs;
        this.thread = new Thread(this::run, "service-probe");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (running) {
            long t0 = System.nanoTime();
            probe("/readyz", null);
            probe("/healthz", null);
            if (chatBody != null) {
                probe("/v1/chat/completions", chatBody);
            }
            long left = periodMs - (System.nanoTime() - t0) / 1_000_000;
            if (left > 0) {
                try {
                    Thread.sleep(left);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void probe(String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(routerUrl + path)).timeout(Duration.ofSeconds(10));
        if (body != null) {
            b.header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        }
        long t0 = System.nanoTime();
        String miss = null;
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                miss = path + " answered " + r.statusCode() + " " + abbreviate(r.body());
            } else if (path.equals("/readyz")) {
                Matcher m = READY_REPLICAS.matcher(r.body());
                int ready = m.find() ? Integer.parseInt(m.group(1)) : -1;
                synchronized (this) {
                    minReady = Math.min(minReady, ready);
                }
                if (ready != expectedReplicas) {
                    miss = "/readyz: " + ready + " of " + expectedReplicas + " replicas ready";
                }
            }
        } catch (Exception e) {
            miss = path + ": " + e;
        }
        long micros = (System.nanoTime() - t0) / 1000;
        synchronized (this) {
            probes++;
            latencyMicros.recordValue(Math.min(micros, latencyMicros.getHighestTrackableValue()));
            if (miss != null) {
                misses.add(String.format("t=%.1fs %s", (System.nanoTime() - startNanos) / 1e9, miss));
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 160 ? s.substring(0, 160) + "…" : s;
    }

    /** One line: probes, misses, the fewest ready replicas seen, latency p50 / p99 / max. */
    synchronized String summary() {
        return String.format("probes=%d misses=%d minReadyReplicas=%d probeLatencyMs p50=%.1f p99=%.1f max=%.1f%s",
                probes, misses.size(), minReady == Integer.MAX_VALUE ? -1 : minReady,
                latencyMicros.getValueAtPercentile(50) / 1e3, latencyMicros.getValueAtPercentile(99) / 1e3,
                latencyMicros.getMaxValue() / 1e3, misses.isEmpty() ? "" : " first misses: " + misses.subList(0, Math.min(5, misses.size())));
    }

    synchronized int misses() {
        return misses.size();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
