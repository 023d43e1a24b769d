package io.lmwarden.bench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.workload.PseudoText;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The first half of the seed's verification plan: one prompt sent twice to the same replica (the second must be a
 * prefix-cache hit by the engine's own usage), then to another replica (a miss). Replicas are pinned with the
 * router's {@code X-LMW-Replica}; the figures are the engine's {@code cache_read_input_tokens}.
 */
public final class CacheCheck {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String router;
    private final String adminToken;

    /** One pinned request: where it went and what the engine said. */
    public record Shot(String replica, int promptTokens, int cachedTokens) {
    }

    /** The three shots and whether they came out as expected. */
    public record Outcome(Shot cold, Shot same, Shot other, boolean hit, boolean miss) {
        public boolean passed() {
            return hit && (other == null || miss);
        }
    }

    public CacheCheck(String router, String adminToken) {
        this.router = router;
        this.adminToken = adminToken;
    }

    public Outcome run(String model, int promptTokens, long nonce) throws IOException, InterruptedException {
        List<String> replicas = readyReplicas();
        if (replicas.isEmpty()) {
            throw new IllegalStateException(router + "/api/replicas lists no ready replica");
        }
        String prompt = PseudoText.of(nonce, "probe-prompt", promptTokens);
        Shot cold = send(model, prompt, replicas.get(0));
        Shot same = send(model, prompt, replicas.get(0));
        Shot other = replicas.size() > 1 ? send(model, prompt, replicas.get(1)) : null;
        boolean hit = same.cachedTokens() >= 0.9 * (same.promptTokens() - 16) && same.cachedTokens() > cold.cachedTokens();
        boolean miss = other != null && other.cachedTokens() < 0.5 * other.promptTokens();
        return new Outcome(cold, same, other, hit, miss);
    }

    public String firstModel() throws IOException, InterruptedException {
        JsonNode data = get("/v1/models").path("data");
        if (data.isEmpty()) {
            throw new IllegalStateException(router + "/v1/models lists no model; pass --model");
        }
        return data.get(0).path("id").asText();
    }

    private List<String> readyReplicas() throws IOException, InterruptedException {
        List<String> ids = new ArrayList<>();
        for (JsonNode r : get("/api/replicas").path("replicas")) {
            if (r.path("ready").asBoolean(false)) {
                ids.add(r.path("id").asText());
            }
        }
        return ids;
    }

    private Shot send(String model, String prompt, String replica) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", model);
        body.put("max_tokens", 1);
        body.putArray("messages").addObject().put("role", "user").put("content", prompt);
        HttpRequest req = HttpRequest.newBuilder(URI.create(router + "/v1/messages")).timeout(Duration.ofMinutes(2))
                .header("content-type", "application/json").header("anthropic-version", "2023-06-01")
                .header("X-LMW-Replica", replica)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("POST /v1/messages pinned to " + replica + " answered " + r.statusCode() + ": " + r.body());
        }
        JsonNode usage = JSON.readTree(r.body()).path("usage");
        int cached = usage.path("cache_read_input_tokens").asInt(0);
        return new Shot(replica, usage.path("input_tokens").asInt(0) + cached, cached);
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(router + path)).timeout(Duration.ofSeconds(30));
        if (adminToken != null) {
            b.header("Authorization", "Bearer " + adminToken);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + router + path + " answered " + r.statusCode()
                    + (r.statusCode() == 401 ? " (pass --admin-token)" : ""));
        }
        return JSON.readTree(r.body());
    }
}
