package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.sim.lora.Adapter;
import io.lmwarden.sim.lora.LoraRequestsInfo;
import io.lmwarden.sim.lora.LoraServing;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.UUID;

/**
 * vLLM's LoRA surface on one server: the adapters' {@code /v1/models} cards ({@code OpenAIServingModels.show_available_models}:
 * id = the adapter's name, root = its path, parent = its base model, no max_model_len), {@code POST /v1/load_lora_adapter}
 * and {@code /v1/unload_lora_adapter} (routed only with runtime updating on, as vLLM attaches them only when
 * {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING} is set), their error shapes and texts, and {@code vllm:lora_requests_info}.
 */
final class LoraEndpoints {
    private final LoraServing lora;
    private final double timeScale;

    /** @param timeScale simulated seconds per wall second: a load from disk takes the adapter's load time, scaled */
    LoraEndpoints(LoraServing lora, double timeScale) {
        this.lora = lora;
        this.timeScale = timeScale;
    }

    void routes(Router router) {
        if (!lora.enabled() || !lora.options().runtimeUpdating()) {
            return;
        }
        router.post("/v1/load_lora_adapter").handler(this::load);
        router.post("/v1/unload_lora_adapter").handler(this::unload);
    }

    /** The adapters' cards, after the base model's. */
    void addCards(ArrayNode data, long created) {
        for (Adapter a : lora.adapters()) {
            ObjectNode m = data.addObject();
            m.put("id", a.name());
            m.put("object", "model");
            m.put("created", created);
            m.put("owned_by", "vllm");
            m.put("root", a.path());
            m.put("parent", a.parent());
            m.putNull("max_model_len");
            addPermission(m, created);
        }
    }

    /** vLLM's {@code ModelPermission()} defaults, one per card. */
    static void addPermission(ObjectNode card, long created) {
        ObjectNode p = card.putArray("permission").addObject();
        p.put("id", "modelperm-" + UUID.randomUUID().toString().replace("-", ""));
        p.put("object", "model_permission");
        p.put("created", created);
        p.put("allow_create_engine", false);
        p.put("allow_sampling", true);
        p.put("allow_logprobs", true);
        p.put("allow_search_indices", false);
        p.put("allow_view", true);
        p.put("allow_fine_tuning", false);
        p.put("organization", "*");
        p.putNull("group");
        p.put("is_blocking", false);
    }

    /** {@code vllm:lora_requests_info}, appended to a server's exposition when LoRA is on. */
    void metrics(StringBuilder sb) {
        if (!lora.enabled()) {
            return;
        }
        sb.append("# HELP vllm:lora_requests_info Running stats on lora requests.\n");
        sb.append("# TYPE vllm:lora_requests_info gauge\n");
        for (LoraRequestsInfo.Series s : lora.info().series()) {
            sb.append("vllm:lora_requests_info{max_lora=\"").append(s.maxLora()).append("\",waiting_lora_adapters=\"")
                    .append(escape(s.waiting())).append("\",running_lora_adapters=\"").append(escape(s.running()))
                    .append("\"} ").append(goFloat(s.epochSeconds())).append('\n');
        }
    }

    private void load(RoutingContext ctx) {
        JsonNode body = Requests.parseObject(ctx);
        if (body == null || !required(ctx, body, "lora_name") || !required(ctx, body, "lora_path")) {
            return;
        }
        String name = body.get("lora_name").asText();
        String path = body.get("lora_path").asText();
        boolean inPlace = body.path("load_inplace").asBoolean(false);
        if (name.isEmpty() || path.isEmpty()) {
            error(ctx, 400, "InvalidUserInput", "Both 'lora_name' and 'lora_path' must be provided.");
            return;
        }
        if (!alreadyLoaded(ctx, name, inPlace)) {
            // vLLM answers once the engine has loaded the adapter (add_lora): a read from disk.
            long wallMs = Math.max(1, Math.round(lora.options().diskLoadMs() / timeScale));
            ctx.vertx().setTimer(wallMs, t -> {
                // The check again, as vLLM holds a per-name lock across it: two loads of one name, one wins.
                if (!alreadyLoaded(ctx, name, inPlace)) {
                    lora.load(name, path, inPlace);
                    text(ctx, "Success: LoRA adapter '" + name + "' added successfully.");
                }
            });
        }
    }

    /** False when it may be loaded; true after answering vLLM's 400 when it is loaded and not to be replaced. */
    private boolean alreadyLoaded(RoutingContext ctx, String name, boolean inPlace) {
        if (!inPlace && lora.adapter(name).isPresent()) {
            error(ctx, 400, "InvalidUserInput", "The lora adapter '" + name + "' has already been loaded."
                    + " If you want to load the adapter in place, set 'load_inplace' to True.");
            return true;
        }
        return false;
    }

    private void unload(RoutingContext ctx) {
        JsonNode body = Requests.parseObject(ctx);
        if (body == null || !required(ctx, body, "lora_name")) {
            return;
        }
        String name = body.get("lora_name").asText();
        if (name.isEmpty()) {
            error(ctx, 400, "InvalidUserInput", "'lora_name' needs to be provided to unload a LoRA adapter.");
        } else if (!lora.unload(name)) {
            error(ctx, 404, "NotFoundError", "The lora adapter '" + name + "' cannot be found.");
        } else {
            text(ctx, "Success: LoRA adapter '" + name + "' removed successfully.");
        }
    }

    /** pydantic's missing or mistyped field, as vLLM's validation handler answers it: 400. */
    private static boolean required(RoutingContext ctx, JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            error(ctx, 400, "BadRequestError", field + ": Field required");
            return false;
        }
        if (!v.isTextual()) {
            error(ctx, 400, "BadRequestError", field + ": Input should be a valid string");
            return false;
        }
        return true;
    }

    private static void error(RoutingContext ctx, int status, String type, String message) {
        if (ctx.response().ended() || ctx.response().closed()) {
            return;
        }
        ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
                .end(ErrorBodies.of(status, type, message, null));
    }

    /** vLLM's success answer: {@code Response(status_code=200, content=message)}, plain text. */
    private static void text(RoutingContext ctx, String message) {
        if (!ctx.response().ended() && !ctx.response().closed()) {
            ctx.response().setStatusCode(200).end(message);
        }
    }

    /** A sample value as prometheus_client writes it ({@code floatToGoString}): a timestamp is {@code 1.7654321091e+09}. */
    static String goFloat(double d) {
        String repr = new java.math.BigDecimal(Double.toString(d)).toPlainString();
        if (!repr.contains(".")) {
            repr = repr + ".0";
        }
        int dot = repr.indexOf('.');
        if (d > 0 && dot > 6) {
            String mantissa = (repr.charAt(0) + "." + repr.substring(1, dot) + repr.substring(dot + 1)).replaceAll("[0.]+$", "");
            return mantissa + "e+0" + (dot - 1);
        }
        return repr;
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
