package io.lmwarden.bench.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the engines' figures through a running router's {@code GET /api/replicas}; they are as fresh as
 * the router's last scrape of each engine.
 */
public final class RouterReplicasProbe implements ReplicaProbe {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient http;
    private final String routerUrl;
    private final String adminToken;

    public RouterReplicasProbe(HttpClient http, String routerUrl, String adminToken) {
        this.http = http;
        this.routerUrl = routerUrl;
        this.adminToken = adminToken;
    }

    @Override
    public Future<List<ReplicaReading>> read() {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET)
                .setAbsoluteURI(routerUrl + "/api/replicas").setIdleTimeout(30_000);
        if (adminToken != null) {
            options.putHeader("Authorization", "Bearer " + adminToken);
        }
        return http.request(options)
                .compose(req -> req.send())
                .compose(resp -> resp.body().compose(body -> resp.statusCode() == 200
                        ? Future.succeededFuture(body)
                        : Future.failedFuture("GET " + routerUrl + "/api/replicas answered HTTP " + resp.statusCode()
                                + (resp.statusCode() == 401 ? " (pass --admin-token)" : "") + ": " + body)))
                .compose(body -> {
                    try {
                        return Future.succeededFuture(parse(MAPPER.readTree(body.getBytes())));
                    } catch (IOException e) {
                        return Future.failedFuture("unreadable /api/replicas answer: " + e.getMessage());
                    }
                });
    }

    static List<ReplicaReading> parse(JsonNode root) {
        List<ReplicaReading> readings = new ArrayList<>();
        for (JsonNode r : root.path("replicas")) {
            readings.add(new ReplicaReading(
                    r.path("id").asText(),
                    r.path("running").asDouble(0),
                    r.path("waiting").asDouble(0),
                    r.path("prefixCacheQueries").asDouble(0),
                    r.path("prefixCacheHits").asDouble(0),
                    r.path("generationTokens").asDouble(0)));
        }
        return readings;
    }

    @Override
    public String describe() {
        return "router " + routerUrl + "/api/replicas (engine counters as of the router's last scrape)";
    }
}
