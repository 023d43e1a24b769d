package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.io.IOException;
import java.time.Duration;

/** Asks the target which model it serves ({@code GET /v1/models}), so that {@code --model} is optional. */
public final class ModelDiscovery {

    private ModelDiscovery() {
    }

    public static String firstModel(HttpClient http, String baseUrl) {
        String body = Await.result(http.request(new RequestOptions().setMethod(HttpMethod.GET)
                        .setAbsoluteURI(baseUrl + "/v1/models").setIdleTimeout(30_000))
                .compose(req -> req.send())
                .compose(resp -> resp.body().map(b -> resp.statusCode() + "\n" + b)), Duration.ofSeconds(30));
        int nl = body.indexOf('\n');
        if (!body.startsWith("200")) {
            throw new IllegalStateException("GET " + baseUrl + "/v1/models answered HTTP " + body.substring(0, nl)
                    + "; pass --model to skip the lookup");
        }
        try {
            JsonNode data = new ObjectMapper().readTree(body.substring(nl + 1)).path("data");
            if (data.isArray() && !data.isEmpty()) {
                return data.get(0).path("id").asText();
            }
        } catch (IOException e) {
            throw new IllegalStateException("unreadable /v1/models answer from " + baseUrl + "; pass --model", e);
        }
        throw new IllegalStateException(baseUrl + "/v1/models lists no model; pass --model");
    }
}
