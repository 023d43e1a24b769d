package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.io.IOException;
import java.time.Duration;

/**
 * Asks the target which model it serves and its context window ({@code GET /v1/models}: {@code id} and vLLM's
 * {@code max_model_len}), so that {@code --model} and {@code --context-window} are optional.
 */
public final class ModelDiscovery {

    private ModelDiscovery() {
    }

    /** The first model listed; {@code name} and {@code contextWindow}, when given (non-null, > 0), win over the answer. */
    public static ServedModel discover(HttpClient http, String baseUrl, String name, int contextWindow) {
        if (name != null && contextWindow > 0) {
            return new ServedModel(name, contextWindow);
        }
        JsonNode first = firstEntry(http, baseUrl, name == null);
        String model = name != null ? name : first.path("id").asText();
        int window = contextWindow > 0 ? contextWindow : first.path("max_model_len").asInt(0);
        return new ServedModel(model, window);
    }

    /** The first entry of /v1/models; when {@code required} is false an unreadable answer gives an empty node. */
    private static JsonNode firstEntry(HttpClient http, String baseUrl, boolean required) {
        try {
            return firstEntry(http, baseUrl);
        } catch (IllegalStateException e) {
            if (required) {
                throw e;
            }
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
    }

    private static JsonNode firstEntry(HttpClient http, String baseUrl) {
        String body;
        try {
            body = Await.result(http.request(new RequestOptions().setMethod(HttpMethod.GET)
                            .setAbsoluteURI(baseUrl + "/v1/models").setIdleTimeout(30_000))
                    .compose(req -> req.send())
                    .compose(resp -> resp.body().map(b -> resp.statusCode() + "\n" + b)), Duration.ofSeconds(30));
        } catch (IllegalStateException e) {
            throw new IllegalStateException("GET " + baseUrl + "/v1/models: " + e.getMessage() + "; pass --model to skip the lookup", e);
        }
        int nl = body.indexOf('\n');
        if (!body.startsWith("200")) {
            throw new IllegalStateException("GET " + baseUrl + "/v1/models answered HTTP " + body.substring(0, nl)
                    + "; pass --model to skip the lookup");
        }
        try {
            JsonNode data = new ObjectMapper().readTree(body.substring(nl + 1)).path("data");
            if (data.isArray() && !data.isEmpty()) {
                return data.get(0);
            }
        } catch (IOException e) {
            throw new IllegalStateException("unreadable /v1/models answer from " + baseUrl + "; pass --model", e);
        }
        throw new IllegalStateException(baseUrl + "/v1/models lists no model; pass --model");
    }
}
