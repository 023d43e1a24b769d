package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.common.api.ApiDialect;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.sim.dp.DataParallelEngines;
import io.lmwarden.sim.tokens.ChunkTokenizer;
import io.lmwarden.sim.tokens.InvalidPromptException;
import io.lmwarden.sim.tokens.PromptRenderer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/** The HTTP surface of one simulated vLLM API server: one replica, or N data-parallel engines behind one port. */
public final class ReplicaServer {
    private static final long BODY_LIMIT = 64L * 1024 * 1024;

    private final ReplicaConfig config;
    private final DataParallelEngines engines;
    private final FaultInjector faults = new FaultInjector();
    private final GenerationEndpoint generation;
    private final MetricsExposition metrics;
    private final LoraEndpoints lora;
    private final long created = System.currentTimeMillis() / 1000;
    private final EngineRelease release;
    private final java.util.concurrent.atomic.LongAdder versionRequests = new java.util.concurrent.atomic.LongAdder();
    private HttpServer server;
    private volatile Runnable crash;

    public ReplicaServer(ReplicaConfig config, DataParallelEngines engines) {
        this(config, engines, new io.lmwarden.sim.lora.LoraServing(io.lmwarden.sim.lora.LoraOptions.DISABLED,
                config.servedModelNames(), engines.engines()), 1.0, EngineRelease.DEFAULT);
    }

    /**
     * With LoRA adapters ({@code timeScale} scales an adapter's load time from disk to wall time), answering
     * {@code GET /version} with {@code release}.
     */
    public ReplicaServer(ReplicaConfig config, DataParallelEngines engines, io.lmwarden.sim.lora.LoraServing lora,
                         double timeScale, EngineRelease release) {
        this.config = config;
        this.release = release;
        this.engines = engines;
        this.lora = new LoraEndpoints(lora, timeScale);
        this.generation = new GenerationEndpoint(config, engines, faults, lora);
        // vLLM labels its engines 0..N-1 whatever the pod: a plain replica is engine "0", as a one-vLLM pod is.
        this.metrics = new MetricsExposition(config.model(), engines.size());
    }

    /** How many times {@code GET /version} was answered: a client is to ask it once, not at every scrape. */
    public long versionRequests() {
        return versionRequests.sum();
    }

    /** Binds the server; the future holds the actual port. */
    public Future<Integer> listen(Vertx vertx, String host, int port) {
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT));
        router.post("/v1/chat/completions").handler(ctx -> generation.handle(ctx, ApiDialect.OPENAI_CHAT));
        router.post("/v1/completions").handler(ctx -> generation.handle(ctx, ApiDialect.OPENAI_COMPLETIONS));
        router.post("/v1/messages").handler(ctx -> generation.handle(ctx, ApiDialect.ANTHROPIC_MESSAGES));
        router.post("/v1/responses").handler(ctx -> generation.handle(ctx, ApiDialect.OPENAI_RESPONSES));
        router.get("/v1/responses/:id").handler(ctx -> Requests.error(ctx, ApiDialect.OPENAI_RESPONSES, 404,
                ResponsesFormat.notStoredMessage(ctx.pathParam("id")), "response_id"));
        router.post("/v1/messages/count_tokens").handler(this::countTokens);
        router.get("/v1/models").handler(this::models);
        router.get("/health").handler(this::health);
        if (release.served()) {
            router.get("/version").handler(ctx -> {
                versionRequests.increment();
                json(ctx, release.json());
            });
        }
        router.post("/tokenize").handler(this::tokenize);
        router.get("/metrics").handler(ctx -> {
            StringBuilder sb = new StringBuilder(metrics.render(engines.metrics(), engines.cacheTierMetrics()));
            lora.metrics(sb);
            ctx.response().putHeader("content-type", MetricsExposition.CONTENT_TYPE).end(sb.toString());
        });
        lora.routes(router);
        // vLLM serves it with VLLM_SERVER_DEV_MODE=1: drops every cached block (when none is in use) and announces
        // AllBlocksCleared; 200 either way, as vLLM answers.
        router.post("/reset_prefix_cache").handler(ctx -> {
            engines.engines().forEach(io.lmwarden.sim.engine.Engine::resetPrefixCache);
            ctx.response().setStatusCode(200).end();
        });
        router.post("/sim/faults").handler(this::armFaults);
        router.get("/sim/faults").handler(ctx -> json(ctx, faults.describe().toString()));
        router.delete("/sim/faults").handler(ctx -> {
            faults.clear();
            pauseEngines(false);
            json(ctx, faults.describe().toString());
        });
        router.errorHandler(413, ctx -> Requests.error(ctx, dialectOf(ctx), 413,
                "Request body too large: the limit is " + BODY_LIMIT + " bytes", null));
        router.errorHandler(404, ctx -> Requests.error(ctx, dialectOf(ctx), 404,
                "No route for " + ctx.request().method() + " " + ctx.request().path(), null));
        router.errorHandler(405, ctx -> Requests.error(ctx, dialectOf(ctx), 405,
                "Method " + ctx.request().method() + " is not allowed on " + ctx.request().path(), null));
        router.errorHandler(500, ctx -> Requests.error(ctx, dialectOf(ctx), 500,
                "Internal simulator error: " + ctx.failure(), null));
        // HTTP/1.1 only, as vLLM's uvicorn: no h2c upgrade. (The JDK client asks for one by default, and once hung for
        // 10 minutes on a 21 KB /metrics answer over the upgraded connection.)
        server = vertx.createHttpServer(new HttpServerOptions().setDecompressionSupported(true).setHttp2ClearTextEnabled(false))
                .requestHandler(router);
        return server.listen(port, host).map(HttpServer::actualPort);
    }

    /** Arms faults as {@code POST /sim/faults} would, for a caller in this process; the same JSON keys. */
    public void armFaults(String json) {
        try {
            faults.apply(Json.MAPPER.readTree(json));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("fault settings are not JSON: " + e.getOriginalMessage(), e);
        }
    }

    public Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    /** Anthropic's shape for everything under /v1/messages; OpenAI's (null: vLLM's own) for the rest. */
    private static ApiDialect dialectOf(RoutingContext ctx) {
        return ctx.request().path().startsWith("/v1/messages") ? ApiDialect.ANTHROPIC_MESSAGES : null;
    }

    private void health(RoutingContext ctx) {
        ctx.response().setStatusCode(faults.unhealthy() ? 503 : 200).end();
    }

    private void models(RoutingContext ctx) {
        long stallMs = faults.modelsStallMs();
        if (stallMs > 0) {
            ctx.vertx().setTimer(stallMs, id -> answerModels(ctx));
        } else {
            answerModels(ctx);
        }
    }

    private void answerModels(RoutingContext ctx) {
        ObjectNode root = Json.object();
        root.put("object", "list");
        var data = root.putArray("data");
        // vLLM lists every --served-model-name, each with the same root (the weights it loaded).
        for (String name : config.servedModelNames()) {
            ObjectNode m = data.addObject();
            m.put("id", name);
            m.put("object", "model");
            m.put("created", created);
            m.put("owned_by", "vllm");
            m.put("root", config.model());
            m.putNull("parent");
            m.put("max_model_len", config.profile().maxModelLen());
            LoraEndpoints.addPermission(m, created);
        }
        lora.addCards(data, created);
        json(ctx, root.toString());
    }

    private void tokenize(RoutingContext ctx) {
        JsonNode body = Requests.parseObject(ctx);
        if (body == null) {
            return;
        }
        try {
            String prompt;
            if (body.has("messages")) {
                prompt = PromptRenderer.renderChat(body);
            } else if (body.has("prompt")) {
                prompt = PromptRenderer.renderCompletion(body);
            } else {
                Requests.error(ctx, 400, "Send either 'prompt' or 'messages'", "prompt");
                return;
            }
            int[] ids = ChunkTokenizer.tokenize(prompt);
            ObjectNode root = Json.object();
            root.put("count", ids.length);
            root.put("max_model_len", config.profile().maxModelLen());
            var tokens = root.putArray("tokens");
            for (int id : ids) {
                tokens.add(id & 0x7fffffff);
            }
            root.putNull("token_strs");
            json(ctx, root.toString());
        } catch (InvalidPromptException e) {
            Requests.error(ctx, 400, e.getMessage(), e.param());
        }
    }

    private void countTokens(RoutingContext ctx) {
        JsonNode body = Requests.parseObject(ctx, ApiDialect.ANTHROPIC_COUNT_TOKENS);
        if (body == null || !Requests.checkModel(ctx, ApiDialect.ANTHROPIC_COUNT_TOKENS, body, config.servedModelNames(), false)) {
            return;
        }
        try {
            int n = ChunkTokenizer.count(PromptRenderer.renderMessages(body));
            json(ctx, "{\"input_tokens\":" + n + "}");
        } catch (InvalidPromptException e) {
            Requests.error(ctx, ApiDialect.ANTHROPIC_COUNT_TOKENS, 400, e.getMessage(), e.param());
        }
    }

    /**
     * Lets {@code POST /sim/faults {"crash":true}} end this process with {@code halt} (no shutdown hooks: what a
     * {@code kill -9} does), for a fault schedule that reaches the replica only over HTTP. Only a simulator that has
     * a process of its own ({@code lmw-sim}) allows it; in-process ones (tests, the router's --simulate) refuse.
     */
    public void allowCrash(Runnable halt) {
        this.crash = halt;
    }

    private void armFaults(RoutingContext ctx) {
        JsonNode body = Requests.parseObject(ctx);
        if (body == null) {
            return;
        }
        if (body.has("crash")) {
            crash(ctx, body.get("crash"));
            return;
        }
        if (body.has("pauseEngines")) {
            // The engines stop between steps until {"pauseEngines":false} or a clear: what arrives meanwhile queues there.
            if (!body.get("pauseEngines").isBoolean()) {
                Requests.error(ctx, 400, "pauseEngines: must be true or false", "pauseEngines");
                return;
            }
            pauseEngines(body.get("pauseEngines").asBoolean());
            ((com.fasterxml.jackson.databind.node.ObjectNode) body).remove("pauseEngines");
        }
        if (body.has("stepEngines")) {
            // Held engines run exactly this many more steps, then hold again: a test sees what one step did.
            if (!body.get("stepEngines").canConvertToInt() || body.get("stepEngines").asInt() < 1) {
                Requests.error(ctx, 400, "stepEngines: must be a whole number >= 1", "stepEngines");
                return;
            }
            for (io.lmwarden.sim.engine.Engine e : engines.engines()) {
                e.allowSteps(body.get("stepEngines").asInt());
            }
            ((com.fasterxml.jackson.databind.node.ObjectNode) body).remove("stepEngines");
        }
        try {
            faults.apply(body);
            json(ctx, faults.describe().toString());
        } catch (IllegalArgumentException e) {
            Requests.error(ctx, 400, e.getMessage(), null);
        }
    }

    private void pauseEngines(boolean on) {
        for (io.lmwarden.sim.engine.Engine e : engines.engines()) {
            e.pause(on);
        }
    }

    private void crash(RoutingContext ctx, JsonNode value) {
        Runnable halt = crash;
        if (!value.isBoolean() || !value.asBoolean()) {
            Requests.error(ctx, 400, "crash: must be true (it cannot be undone)", "crash");
        } else if (halt == null) {
            Requests.error(ctx, 400, "crash: this simulator runs inside another program; only a"
                    + " simulator process of its own (java -jar lmw-sim.jar) can crash. Stop this one from its host.", "crash");
        } else {
            // Answer first, so the caller knows it was taken; then the process dies with every connection open.
            ctx.response().putHeader("content-type", "application/json").end("{\"crash\":true}").onComplete(done -> halt.run());
        }
    }

    private static void json(RoutingContext ctx, String body) {
        ctx.response().putHeader("content-type", "application/json").end(body);
    }
}
