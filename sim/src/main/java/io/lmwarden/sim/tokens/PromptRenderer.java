package io.lmwarden.sim.tokens;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Renders request bodies into one canonical prompt text, the way a ChatML template (Qwen's) lays it out:
 * system text and tool definitions first, then each message between role markers, then the assistant header.
 * Claude Code's per-request {@code x-anthropic-billing-header} system block is dropped, as vLLM does.
 */
public final class PromptRenderer {
    public static final String BILLING_HEADER_PREFIX = "x-anthropic-billing-header:";
    private static final String IMAGE_PLACEHOLDER = "<|vision_start|><|image_pad|><|vision_end|>";

    private PromptRenderer() {
    }

    /**
     * OpenAI {@code /v1/chat/completions} (and chat {@code /tokenize}): {@code messages} (required), {@code tools}, and
     * vLLM's {@code add_generation_prompt} (default true: the assistant header closes the prompt).
     */
    public static String renderChat(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new InvalidPromptException("Field required: 'messages' must be an array of messages", "messages");
        }
        if (messages.isEmpty()) {
            throw new InvalidPromptException("'messages' must contain at least one message", "messages");
        }
        StringBuilder sb = new StringBuilder(4096);
        appendSystem(sb, null, body.get("tools"));
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = textField(m, "role", "messages[" + i + "].role");
            String renderedRole = role.equals("tool") ? "user" : role;
            sb.append("<|im_start|>").append(renderedRole).append('\n');
            if (role.equals("tool")) {
                sb.append("<tool_response>\n");
                appendContent(sb, m.get("content"), "messages[" + i + "].content");
                sb.append("\n</tool_response>");
            } else {
                appendContent(sb, m.get("content"), "messages[" + i + "].content");
            }
            JsonNode calls = m.get("tool_calls");
            if (calls != null && calls.isArray()) {
                for (JsonNode call : calls) {
                    JsonNode fn = call.path("function");
                    sb.append("\n<tool_call>\n{\"name\": \"").append(fn.path("name").asText())
                            .append("\", \"arguments\": ").append(fn.path("arguments").asText()).append("}\n</tool_call>");
                }
            }
            sb.append("<|im_end|>\n");
        }
        if (!body.path("add_generation_prompt").asBoolean(true)) {
            return sb.toString();
        }
        return sb.append("<|im_start|>assistant\n").toString();
    }

    /** Anthropic {@code /v1/messages}: {@code system} (string or text blocks), {@code tools}, {@code messages}. */
    public static String renderMessages(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new InvalidPromptException("messages: Field required (an array of messages)", "messages");
        }
        StringBuilder sb = new StringBuilder(4096);
        appendSystem(sb, systemText(body.get("system")), body.get("tools"));
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = anthropicRole(textField(m, "role", "messages." + i + ".role"), "messages." + i + ".role");
            sb.append("<|im_start|>").append(role).append('\n');
            appendContent(sb, m.get("content"), "messages." + i + ".content");
            sb.append("<|im_end|>\n");
        }
        return sb.append("<|im_start|>assistant\n").toString();
    }

    /**
     * vLLM's AnthropicMessage role: user, assistant or system (mid-list system turns), with Claude Code's
     * non-standard {@code ctx} and {@code msg} (2.1.154 and later) mapped to user; anything else is a 400.
     */
    private static String anthropicRole(String role, String param) {
        return switch (role) {
            case "user", "assistant", "system" -> role;
            case "ctx", "msg" -> "user";
            default -> throw new InvalidPromptException(param + ": Input should be 'user', 'assistant' or 'system', got '"
                    + role + "'", param);
        };
    }

    /**
     * OpenAI Responses API {@code /v1/responses}: {@code instructions} and {@code tools} as the system turn, then
     * {@code input} (a string, or items: messages with role user/assistant/system/developer, function calls and
     * their outputs; reasoning items carry no prompt text here). {@code previous_response_id} is handled by the caller.
     */
    public static String renderResponses(JsonNode body) {
        JsonNode input = body.get("input");
        if (input == null || input.isNull()) {
            throw new InvalidPromptException("input: Field required", "input");
        }
        JsonNode instructions = body.get("instructions");
        if (instructions != null && !instructions.isNull() && !instructions.isTextual()) {
            throw new InvalidPromptException("instructions: must be a string", "instructions");
        }
        StringBuilder sb = new StringBuilder(4096);
        appendSystem(sb, instructions == null || instructions.isNull() ? null : instructions.asText(), body.get("tools"));
        if (input.isTextual()) {
            sb.append("<|im_start|>user\n").append(input.asText()).append("<|im_end|>\n");
            return sb.append("<|im_start|>assistant\n").toString();
        }
        if (!input.isArray()) {
            throw new InvalidPromptException("input: must be a string or an array of input items", "input");
        }
        for (int i = 0; i < input.size(); i++) {
            appendResponsesItem(sb, input.get(i), "input[" + i + "]");
        }
        return sb.append("<|im_start|>assistant\n").toString();
    }

    private static void appendResponsesItem(StringBuilder sb, JsonNode item, String param) {
        if (item == null || !item.isObject()) {
            throw new InvalidPromptException(param + ": must be an input item object", param);
        }
        String type = item.path("type").asText(item.has("role") ? "message" : "");
        switch (type) {
            case "message" -> {
                String role = textField(item, "role", param + ".role");
                String rendered = switch (role) {
                    case "user", "assistant", "system" -> role;
                    case "developer" -> "system";
                    default -> throw new InvalidPromptException(param + ".role: Input should be 'user', 'assistant', "
                            + "'system' or 'developer', got '" + role + "'", param + ".role");
                };
                sb.append("<|im_start|>").append(rendered).append('\n');
                appendContent(sb, item.get("content"), param + ".content");
                sb.append("<|im_end|>\n");
            }
            case "function_call" -> sb.append("<|im_start|>assistant\n<tool_call>\n{\"name\": \"")
                    .append(item.path("name").asText()).append("\", \"arguments\": ")
                    .append(item.path("arguments").asText()).append("}\n</tool_call><|im_end|>\n");
            case "function_call_output", "custom_tool_call_output", "local_shell_call_output" -> {
                sb.append("<|im_start|>user\n<tool_response>\n");
                JsonNode output = item.get("output");
                if (output != null && output.isTextual()) {
                    sb.append(output.asText());
                } else {
                    appendContent(sb, output, param + ".output");
                }
                sb.append("\n</tool_response><|im_end|>\n");
            }
            // Reasoning items come back encrypted or as summaries; a chat template renders no text for them.
            case "reasoning" -> { }
            case "" -> throw new InvalidPromptException(param + ": an input item needs a 'type' (or a 'role')", param);
            default -> sb.append("<|im_start|>assistant\n").append(item.toString()).append("<|im_end|>\n");
        }
    }

    /** OpenAI {@code /v1/completions}: {@code prompt} as a string or an array holding one string. */
    public static String renderCompletion(JsonNode body) {
        JsonNode prompt = body.get("prompt");
        if (prompt == null || prompt.isNull()) {
            throw new InvalidPromptException("Field required: 'prompt'", "prompt");
        }
        if (prompt.isTextual()) {
            return prompt.asText();
        }
        if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
            return prompt.get(0).asText();
        }
        throw new InvalidPromptException("'prompt' must be a string or an array with one string", "prompt");
    }

    /** The system text that counts: a string, or the text blocks minus Claude Code's billing header. */
    static String systemText(JsonNode system) {
        if (system == null || system.isNull()) {
            return null;
        }
        if (system.isTextual()) {
            return system.asText();
        }
        if (!system.isArray()) {
            throw new InvalidPromptException("system: must be a string or an array of text blocks", "system");
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode block : system) {
            String text = block.isTextual() ? block.asText() : block.path("text").asText("");
            if (text.startsWith(BILLING_HEADER_PREFIX)) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(text);
        }
        return sb.toString();
    }

    private static void appendSystem(StringBuilder sb, String system, JsonNode tools) {
        boolean hasTools = tools != null && tools.isArray() && !tools.isEmpty();
        if (system == null && !hasTools) {
            return;
        }
        sb.append("<|im_start|>system\n");
        if (system != null) {
            sb.append(system);
        }
        if (hasTools) {
            sb.append("\n\n# Tools\n\n<tools>");
            for (JsonNode tool : tools) {
                sb.append('\n').append(tool.toString());
            }
            sb.append("\n</tools>");
        }
        sb.append("<|im_end|>\n");
    }

    private static void appendContent(StringBuilder sb, JsonNode content, String param) {
        if (content == null || content.isNull()) {
            return;
        }
        if (content.isTextual()) {
            sb.append(content.asText());
            return;
        }
        if (!content.isArray()) {
            throw new InvalidPromptException(param + ": must be a string or an array of content blocks", param);
        }
        boolean firstBlock = true;
        for (JsonNode block : content) {
            if (!firstBlock) {
                sb.append('\n');
            }
            firstBlock = false;
            appendBlock(sb, block, param);
        }
    }

    private static void appendBlock(StringBuilder sb, JsonNode block, String param) {
        if (block.isTextual()) {
            sb.append(block.asText());
            return;
        }
        String type = block.path("type").asText("");
        switch (type) {
            case "text", "input_text", "output_text" -> sb.append(block.path("text").asText(""));
            case "image", "image_url", "input_image", "document" -> sb.append(IMAGE_PLACEHOLDER);
            case "tool_use", "server_tool_use" -> sb.append("<tool_call>\n{\"name\": \"")
                    .append(block.path("name").asText()).append("\", \"arguments\": ")
                    .append(block.path("input").toString()).append("}\n</tool_call>");
            case "tool_result" -> {
                sb.append("<tool_response>\n");
                appendContent(sb, block.get("content"), param);
                sb.append("\n</tool_response>");
            }
            case "thinking" -> sb.append("<think>\n").append(block.path("thinking").asText("")).append("\n</think>");
            case "redacted_thinking" -> { }
            default -> sb.append(block.toString());
        }
    }

    private static String textField(JsonNode node, String field, String param) {
        JsonNode v = node == null ? null : node.get(field);
        if (v == null || !v.isTextual()) {
            throw new InvalidPromptException(param + ": Field required", param);
        }
        return v.asText();
    }

}
