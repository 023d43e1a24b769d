package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.sim.dp.DataParallelEngines;
import io.lmwarden.sim.tokens.ChunkTokenizer;
import io.lmwarden.sim.tokens.FillerText;
import io.lmwarden.sim.tokens.InvalidPromptException;
import io.lmwarden.sim.tokens.PromptRenderer;
import io.vertx.core.Context;
import io.vertx.ext.web.RoutingContext;

import java.util.Arrays;
import java.util.UUID;

/**
 * The shared path of /v1/chat/completions, /v1/completions, /v1/messages and /v1/responses: parse, validate like vLLM,
 * apply armed faults, render and tokenize the prompt, submit to the engine and stream the reply back.
 */
final class GenerationEndpoint {

    /** vLLM's default would be "the rest of the context"; agents always send max_tokens, so keep it modest. */
    static final int DEFAULT_MAX_TOKENS = 256;
    /** vLLM's OpenAI server sends a request carrying this header to that engine, skipping its balancer. */
    static final String DATA_PARALLEL_RANK = "X-data-parallel-rank";

    private final ReplicaConfig config;
    private final DataParallelEngines engines;
    private final FaultInjector faults;
    private final ReplyLengths lengths;
    private final io.lmwarden.sim.lora.LoraServing lora;

    GenerationEndpoint(ReplicaConfig config, DataParallelEngines engines, FaultInjector faults,
                       io.lmwarden.sim.lora.LoraServing lora) {
        this.config = config;
        this.engines = engines;
        this.faults = faults;
        this.lora = lora;
        this.lengths = new ReplyLengths(config.outputLength(), config.seed());
    }

    /** @param dialect one of the APIs that generate */
    void handle(RoutingContext ctx, ApiDialect dialect) {
        JsonNode body = Requests.parseObject(ctx, dialect);
        if (body == null) {
            return;
        }
        FaultPlan plan = faults.next();
        if (plan.hold()) {
            Context context = ctx.vertx().getOrCreateContext();
            faults.hold(() -> context.runOnContext(v -> afterStall(ctx, dialect, body, plan)));
        } else {
            afterStall(ctx, dialect, body, plan);
        }
    }

    private void afterStall(RoutingContext ctx, ApiDialect dialect, JsonNode body, FaultPlan plan) {
        if (plan.stallMs() > 0) {
            ctx.vertx().setTimer(plan.stallMs(), t -> proceed(ctx, dialect, body, plan));
        } else {
            proceed(ctx, dialect, body, plan);
        }
    }

    private void proceed(RoutingContext ctx, ApiDialect dialect, JsonNode body, FaultPlan plan) {
        if (plan.failStatus() > 0) {
            Requests.error(ctx, dialect, plan.failStatus(),
                    "Simulated failure injected by /sim/faults (status " + plan.failStatus() + ")", null);
            return;
        }
        try {
            // A LoRA adapter is a model name of its own (vLLM's _check_model: base names, then loaded adapters).
            if (!Requests.checkModel(ctx, dialect, body, name -> config.servedModelNames().contains(name)
                    || lora.adapter(name).isPresent(), dialect == ApiDialect.ANTHROPIC_MESSAGES)) {
                return;
            }
            if (dialect == ApiDialect.OPENAI_RESPONSES && body.hasNonNull("previous_response_id")) {
                String id = body.get("previous_response_id").asText();
                Requests.error(ctx, dialect, 404, ResponsesFormat.notStoredMessage(id), "previous_response_id");
                return;
            }
            // Rendered and tokenized on a worker, as vLLM's API server tokenizes in a thread pool: a 100 KB agent prompt
            // must not hold the event loop that answers /health and streams every other request's tokens.
            ctx.vertx().executeBlocking(() -> ChunkTokenizer.tokenize(render(dialect, body)), false)
                    .onComplete(rendered -> {
                        if (rendered.succeeded()) {
                            submit(ctx, dialect, body, plan, rendered.result());
                        } else if (rendered.cause() instanceof InvalidPromptException e) {
                            Requests.error(ctx, dialect, 400, e.getMessage(), e.param());
                        } else {
                            ctx.fail(rendered.cause());
                        }
                    });
        } catch (InvalidPromptException e) {
            Requests.error(ctx, dialect, 400, e.getMessage(), e.param());
        }
    }

    private static String render(ApiDialect dialect, JsonNode body) {
        return switch (dialect) {
            case OPENAI_CHAT -> PromptRenderer.renderChat(body);
            case OPENAI_COMPLETIONS -> PromptRenderer.renderCompletion(body);
            case ANTHROPIC_MESSAGES -> PromptRenderer.renderMessages(body);
            case OPENAI_RESPONSES -> PromptRenderer.renderResponses(body);
            case ANTHROPIC_COUNT_TOKENS -> throw new IllegalArgumentException("count_tokens generates nothing");
        };
    }

    private void submit(RoutingContext ctx, ApiDialect dialect, JsonNode body, FaultPlan plan, int[] promptIds) {
        try {
            boolean stream = body.path("stream").asBoolean(false);
            int maxModelLen = config.profile().maxModelLen();
            if (promptIds.length >= maxModelLen) {
                Requests.error(ctx, dialect, 400, "This model's maximum context length is " + maxModelLen
                        + " tokens. However, your request has " + promptIds.length
                        + " input tokens. Please reduce the length of the input messages.", null);
                return;
            }
            Integer requested = maxTokens(body, dialect);
            if (requested != null && promptIds.length + requested > maxModelLen) {
                Requests.error(ctx, dialect, 400, "'max_tokens' or 'max_completion_tokens' is too large: " + requested
                        + ". This model's maximum context length is " + maxModelLen + " tokens and your request has "
                        + promptIds.length + " input tokens (" + requested + " > " + maxModelLen + " - "
                        + promptIds.length + ").", "max_tokens");
                return;
            }
            int maxTokens = requested != null ? requested : Math.min(DEFAULT_MAX_TOKENS, maxModelLen - promptIds.length);
            int outputTokens = lengths.next(maxTokens);
            String text = FillerText.of(outputTokens, config.seed() ^ Arrays.hashCode(promptIds));
            int[] outputIds = ChunkTokenizer.tokenize(text);
            ReplyStream reply = new ReplyStream(ctx.vertx().getOrCreateContext(), ctx.request(),
                    format(dialect, body, stream, maxTokens, promptIds, outputIds), text, stream, promptIds.length, plan.dropAfterChunks(), plan.compactSse(),
                    plan.holdEnd() ? faults::hold : null);
            DataParallelEngines.Submitted sent = engines.submit(ctx.request().getHeader(DATA_PARALLEL_RANK),
                    promptIds, outputIds, outputTokens == maxTokens, cacheSalt(body),
                    lora.adapter(body.path("model").asText(null)).orElse(null), priority(body), reply);
            reply.attach(sent.engine(), sent.request());
        } catch (InvalidPromptException e) {
            Requests.error(ctx, dialect, 400, e.getMessage(), e.param());
        }
    }

    private ReplyFormat format(ApiDialect dialect, JsonNode body, boolean stream, int maxTokens, int[] promptIds, int[] outputIds) {
        // vLLM's return_token_ids (chat and completions): prompt_token_ids and each choice's token_ids.
        boolean ids = body.path("return_token_ids").asBoolean(false);
        long created = System.currentTimeMillis() / 1000;
        String hex = UUID.randomUUID().toString().replace("-", "");
        String model = body.path("model").asText(config.model());
        return switch (dialect) {
            case OPENAI_CHAT -> new OpenAiFormat(true, "chatcmpl-" + hex, created, model, includeUsage(body, stream),
                    ids ? promptIds : null, ids ? outputIds : null);
            case OPENAI_COMPLETIONS -> new OpenAiFormat(false, "cmpl-" + hex, created, model, includeUsage(body, stream),
                    ids ? promptIds : null, ids ? outputIds : null);
            case ANTHROPIC_MESSAGES -> new AnthropicFormat("msg_" + hex.substring(0, 24), model);
            case OPENAI_RESPONSES -> new ResponsesFormat("resp_" + hex, "msg_" + UUID.randomUUID().toString().replace("-", ""),
                    created, model, body, maxTokens);
            case ANTHROPIC_COUNT_TOKENS -> throw new IllegalArgumentException("count_tokens generates nothing");
        };
    }

    /**
     * vLLM's request {@code priority} (an integer, 0 when absent; vllm/entrypoints/openai/protocol.py): lower runs first
     * on an engine under the priority policy, and an FCFS engine takes it and ignores it.
     */
    private static int priority(JsonNode body) {
        JsonNode p = body.get("priority");
        if (p == null || p.isNull()) {
            return 0;
        }
        if (!p.canConvertToInt() || !p.isIntegralNumber()) {
            throw new InvalidPromptException("priority: Input should be a valid integer", "priority");
        }
        return p.asInt();
    }

    /**
     * vLLM's {@code cache_salt} (chat, completions, responses): mixed into the first block's hash, so requests with
     * different salts share no cached blocks. Null when absent.
     */
    private static String cacheSalt(JsonNode body) {
        JsonNode salt = body.get("cache_salt");
        if (salt == null || salt.isNull()) {
            return null;
        }
        if (!salt.isTextual() || salt.asText().isEmpty()) {
            throw new InvalidPromptException("cache_salt: must be a non-empty string", "cache_salt");
        }
        return salt.asText();
    }

    private static boolean includeUsage(JsonNode body, boolean stream) {
        return stream && body.path("stream_options").path("include_usage").asBoolean(false);
    }

    /** max_tokens (max_completion_tokens, or the Responses API's max_output_tokens); Anthropic requires it. Null when absent (OpenAI). */
    private static Integer maxTokens(JsonNode body, ApiDialect dialect) {
        String field = dialect == ApiDialect.OPENAI_RESPONSES ? "max_output_tokens" : "max_tokens";
        JsonNode v = body.get(field);
        if ((v == null || v.isNull()) && dialect == ApiDialect.OPENAI_CHAT) {
            field = "max_completion_tokens";
            v = body.get(field);
        }
        if (v == null || v.isNull()) {
            if (dialect == ApiDialect.ANTHROPIC_MESSAGES) {
                throw new InvalidPromptException("max_tokens: Field required", "max_tokens");
            }
            return null;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 1) {
            throw new InvalidPromptException(field + ": must be an integer of at least 1", field);
        }
        return v.asInt();
    }
}
