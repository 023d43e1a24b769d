package io.lmwarden.router.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A plain HTTP client for tests: what any client of the router would do. */
public final class Http {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** A response with its body read whole (SSE streams too: read to the end). */
    public record Reply(int status, Map<String, List<String>> headers, String body) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        public String replica() {
            return header("x-lmw-replica");
        }

        public String decision() {
            return header("x-lmw-decision");
        }
    }

    public Reply post(String url, String json, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        headers.forEach(b::header);
        return send(b.build());
    }

    public Reply get(String url) {
        return get(url, Map.of());
    }

    public Reply get(String url, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET();
        headers.forEach(b::header);
        return send(b.build());
    }

    public Reply delete(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).DELETE().build());
    }

    /** Any method, any body, any headers: what a hostile client would send. */
    public Reply send(String method, String url, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return send(b.build());
    }

    public Reply put(String url, String json, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json));
        headers.forEach(b::header);
        return send(b.build());
    }

    /** An SSE stream read to its end: its head's status and headers, and its lines as they came. */
    public record Stream(int status, Map<String, List<String>> headers, List<String> lines) {
        /** The replica that answered ({@code X-LMW-Replica}), or null. */
        public String replica() {
            return new Reply(status, headers, "").replica();
        }
    }

    /** Reads an SSE stream line by line, as it arrives. */
    public List<String> streamLines(String url, String json, Map<String, String> headers) {
        return stream(url, json, headers).lines();
    }

    /** Reads an SSE stream line by line, as it arrives, with its head; a connection lost mid-stream is the last line. */
    public Stream stream(String url, String json, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        headers.forEach(b::header);
        List<String> lines = new ArrayList<>();
        try {
            HttpResponse<java.io.InputStream> r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("<<connection error: " + e.getMessage() + ">>");
            }
            return new Stream(r.statusCode(), r.headers().map(), lines);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Reply send(HttpRequest req) {
        try {
            HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.headers().map(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
