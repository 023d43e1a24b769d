package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A small real-HTTP client for the tests: JSON requests, SSE streams and the metrics exposition. */
final class SimHttp {
    static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    SimHttp(String base) {
        this.base = base;
    }

    record Reply(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * A streamed reply: its data payloads, the wall time to the first one (from the request's start, and as the
     * {@link System#nanoTime()} it arrived at), and whether it ended normally.
     */
    record Stream(int status, List<String> events, List<String> data, long firstDataNanos, long firstDataAtNanos,
                  boolean complete) {
    }

    Reply post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** A POST with extra request headers (name, value, name, value, …). */
    Reply post(String path, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b.build());
    }

    Reply get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET().build());
    }

    Reply delete(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).DELETE().build());
    }

    Stream stream(String path, String body) {
        long start = System.nanoTime();
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        List<String> events = new ArrayList<>();
        List<String> data = new ArrayList<>();
        long first = -1;
        boolean complete = false;
        int status;
        try {
            HttpResponse<java.io.InputStream> resp = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
            status = resp.statusCode();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("event: ")) {
                        events.add(line.substring(7));
                    } else if (line.startsWith("data: ")) {
                        if (first < 0) {
                            first = System.nanoTime() - start;
                        }
                        String d = line.substring(6);
                        data.add(d);
                        if (d.equals("[DONE]") || d.contains("\"message_stop\"") || d.contains("\"type\":\"response.completed\"")) {
                            complete = true;
                        }
                    }
                }
            } catch (IOException e) {
                // the server dropped the connection: complete stays false
            }
        } catch (IOException e) {
            return new Stream(-1, events, data, first, first < 0 ? -1 : start + first, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new Stream(status, events, data, first, first < 0 ? -1 : start + first, complete);
    }

    /**
     * Polls {@code GET /sim/faults} until {@code n} requests are held ({@code holdNext}); the deadline only turns a hang
     * into a failure, it bounds no speed.
     */
    void awaitHeld(int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (get("/sim/faults").json().get("held").asInt() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(n + " requests held within 60 s: " + get("/sim/faults").body());
            }
            Thread.sleep(10);
        }
    }

    /** Samples of the exposition keyed by "name{labels}" exactly as printed. */
    Map<String, Double> metrics() {
        Map<String, Double> out = new HashMap<>();
        for (String line : get("/metrics").body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            out.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
        }
        return out;
    }

    /** Sum of all samples of one metric name (any labels). */
    double metric(String name) {
        return metrics().entrySet().stream()
                .filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
                .mapToDouble(Map.Entry::getValue).sum();
    }

    private Reply send(HttpRequest req) {
        try {
            HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String chat(String model, String userText, int maxTokens, boolean stream) {
        var root = JSON.createObjectNode();
        root.put("model", model);
        root.putArray("messages").addObject().put("role", "user").put("content", userText);
        root.put("max_tokens", maxTokens);
        root.put("stream", stream);
        if (stream) {
            root.putObject("stream_options").put("include_usage", true);
        }
        return root.toString();
    }

    /** Deterministic pseudo-text of about {@code chars} characters, different for each seed. */
    static String text(int chars, long seed) {
        StringBuilder sb = new StringBuilder(chars + 16);
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        while (sb.length() < chars) {
            int len = 2 + r.nextInt(8);
            for (int i = 0; i < len; i++) {
                sb.append((char) ('a' + r.nextInt(26)));
            }
            sb.append(r.nextInt(12) == 0 ? '\n' : ' ');
        }
        return sb.toString();
    }
}
