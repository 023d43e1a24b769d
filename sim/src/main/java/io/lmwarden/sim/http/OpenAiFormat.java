package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.sim.engine.FinishedRequest;

import java.util.ArrayList;
import java.util.List;

/** vLLM's OpenAI-compatible replies: chat completions ({@code chat=true}) or text completions. */
final class OpenAiFormat implements ReplyFormat {
    private final boolean chat;
    private final String id;
    private final long created;
    private final String model;
    private final boolean includeUsage;
    /** vLLM's {@code return_token_ids}: the prompt's and the reply's ids, or null when not asked for. */
    private final int[] promptIds;
    private final int[] outputIds;
    private int sentIds;

    OpenAiFormat(boolean chat, String id, long created, String model, boolean includeUsage) {
        this(chat, id, created, model, includeUsage, null, null);
    }

    /**
     * With {@code promptIds} and {@code outputIds} (vLLM's {@code return_token_ids}): chat replies carry
     * {@code prompt_token_ids} at the top (streaming: in the first chunk only) and each choice its {@code token_ids}
     * (streaming: the chunk's delta); text completions carry both on the choice.
     */
    OpenAiFormat(boolean chat, String id, long created, String model, boolean includeUsage, int[] promptIds, int[] outputIds) {
        this.chat = chat;
        this.id = id;
        this.created = created;
        this.model = model;
        this.includeUsage = includeUsage;
        this.promptIds = promptIds;
        this.outputIds = outputIds;
    }

    @Override
    public List<String> first(String text, int promptTokens, int cachedTokens) {
        List<String> out = new ArrayList<>(2);
        if (chat) {
            ObjectNode role = chunk();
            ObjectNode delta = choice(role).putObject("delta");
            delta.put("role", "assistant");
            delta.put("content", "");
            if (promptIds != null) {
                ids(role.putArray("prompt_token_ids"), promptIds, 0, promptIds.length);
            }
            out.add(ReplyFormat.sse(role.toString()));
            out.addAll(delta(text));
        } else {
            ObjectNode c = chunk();
            ObjectNode ch = choice(c);
            putText(ch, text);
            if (promptIds != null) {
                ids(ch.putArray("prompt_token_ids"), promptIds, 0, promptIds.length);
            }
            putDeltaIds(ch, text);
            out.add(ReplyFormat.sse(c.toString()));
        }
        return out;
    }

    @Override
    public List<String> delta(String text) {
        ObjectNode c = chunk();
        ObjectNode ch = choice(c);
        putText(ch, text);
        putDeltaIds(ch, text);
        return List.of(ReplyFormat.sse(c.toString()));
    }

    @Override
    public List<String> finish(String text, FinishedRequest result) {
        List<String> out = new ArrayList<>(3);
        ObjectNode c = chunk();
        ObjectNode ch = choice(c);
        putText(ch, text);
        putDeltaIds(ch, text);
        ch.put("finish_reason", result.finishReason());
        ch.putNull("stop_reason");
        out.add(ReplyFormat.sse(c.toString()));
        if (includeUsage) {
            ObjectNode u = chunk();
            u.putArray("choices");
            u.set("usage", usage(result));
            out.add(ReplyFormat.sse(u.toString()));
        }
        out.add("data: [DONE]\n\n");
        return out;
    }

    @Override
    public String complete(String text, FinishedRequest result) {
        ObjectNode root = Json.object();
        root.put("id", id);
        root.put("object", chat ? "chat.completion" : "text_completion");
        root.put("created", created);
        root.put("model", model);
        ObjectNode ch = root.putArray("choices").addObject();
        ch.put("index", 0);
        if (chat) {
            ObjectNode msg = ch.putObject("message");
            msg.put("role", "assistant");
            msg.put("content", text);
            msg.putNull("refusal");
            msg.putArray("tool_calls");
        } else {
            ch.put("text", text);
        }
        ch.putNull("logprobs");
        ch.put("finish_reason", result.finishReason());
        ch.putNull("stop_reason");
        if (outputIds != null) {
            if (!chat) {
                ids(ch.putArray("prompt_token_ids"), promptIds, 0, promptIds.length);
            }
            ids(ch.putArray("token_ids"), outputIds, 0, Math.min(outputIds.length, result.outputTokens()));
        }
        if (promptIds != null && chat) {
            ids(root.putArray("prompt_token_ids"), promptIds, 0, promptIds.length);
        }
        root.set("usage", usage(result));
        return root.toString();
    }

    private ObjectNode chunk() {
        ObjectNode c = Json.object();
        c.put("id", id);
        c.put("object", chat ? "chat.completion.chunk" : "text_completion");
        c.put("created", created);
        c.put("model", model);
        return c;
    }

    private static ObjectNode choice(ObjectNode chunk) {
        ObjectNode ch = chunk.putArray("choices").addObject();
        ch.put("index", 0);
        ch.putNull("logprobs");
        ch.putNull("finish_reason");
        return ch;
    }

    private void putText(ObjectNode choice, String text) {
        if (chat) {
            choice.putObject("delta").put("content", text);
        } else {
            choice.put("text", text);
        }
    }

    /** The ids of the reply tokens {@code text} carries (filler text: four characters per token), after those sent before. */
    private void putDeltaIds(ObjectNode choice, String text) {
        if (outputIds == null) {
            return;
        }
        int n = Math.min(text.length() / 4, outputIds.length - sentIds);
        ids(choice.putArray("token_ids"), outputIds, sentIds, sentIds + n);
        sentIds += n;
    }

    private static void ids(com.fasterxml.jackson.databind.node.ArrayNode out, int[] ids, int from, int to) {
        for (int i = from; i < to; i++) {
            // The ids /tokenize reports.
            out.add(ids[i] & 0x7fffffff);
        }
    }

    private static ObjectNode usage(FinishedRequest r) {
        ObjectNode u = Json.object();
        u.put("prompt_tokens", r.promptTokens());
        u.put("total_tokens", r.promptTokens() + r.outputTokens());
        u.put("completion_tokens", r.outputTokens());
        u.putObject("prompt_tokens_details").put("cached_tokens", r.cachedTokens());
        return u;
    }
}
