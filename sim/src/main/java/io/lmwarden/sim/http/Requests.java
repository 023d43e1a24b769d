package io.lmwarden.sim.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.common.api.ApiDialect;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/** Request parsing and error replies shared by the endpoints. */
final class Requests {
    private Requests() {
    }

    /** As {@link #parseObject(RoutingContext, ApiDialect)}, for vLLM's own endpoints (/tokenize, /sim/faults): OpenAI's error shape. */
    static JsonNode parseObject(RoutingContext ctx) {
        return parseObject(ctx, null);
    }

    /** The body as a JSON object, or null after answering 400 in the API's error shape. */
    static JsonNode parseObject(RoutingContext ctx, ApiDialect dialect) {
        String text = ctx.body() == null ? null : ctx.body().asString();
        if (text == null || text.isBlank()) {
            error(ctx, dialect, 400, "The request body is empty; send a JSON object", null);
            return null;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(text);
            if (node == null || !node.isObject()) {
                error(ctx, dialect, 400, "The request body must be a JSON object", null);
                return null;
            }
            return node;
        } catch (JsonProcessingException e) {
            error(ctx, dialect, 400, "Invalid JSON in the request body: " + e.getOriginalMessage()
                    + " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")",
                    null);
            return null;
        }
    }

    /** False (after answering) when the body names a model this replica does not serve under any of its names. */
    static boolean checkModel(RoutingContext ctx, ApiDialect dialect, JsonNode body, List<String> served, boolean required) {
        return checkModel(ctx, dialect, body, served::contains, required);
    }

    /** As above, with what is served given as a test (served names, then LoRA adapters). */
    static boolean checkModel(RoutingContext ctx, ApiDialect dialect, JsonNode body,
                              java.util.function.Predicate<String> served, boolean required) {
        JsonNode model = body.get("model");
        if (model == null || model.isNull()) {
            if (required) {
                error(ctx, dialect, 400, "model: Field required", "model");
                return false;
            }
            return true;
        }
        if (!model.isTextual() || !served.test(model.asText())) {
            error(ctx, dialect, 404, "The model `" + model.asText() + "` does not exist.", "model");
            return false;
        }
        return true;
    }

    /** An error of vLLM's own endpoints: OpenAI's shape. */
    static void error(RoutingContext ctx, int status, String message, String param) {
        error(ctx, null, status, message, param);
    }

    /** @param dialect the endpoint's API; null for vLLM's own endpoints, which answer in OpenAI's shape */
    static void error(RoutingContext ctx, ApiDialect dialect, int status, String message, String param) {
        if (ctx.response().ended() || ctx.response().closed()) {
            return;
        }
        ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
                .end(ErrorBodies.of(dialect, status, message, param));
    }
}
