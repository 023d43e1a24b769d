package io.lmwarden.router.proxy;

/**
 * Asks the engine for the prompt's token ids (vLLM's {@code return_token_ids} on chat/completions and completions):
 * the router keys the engine's cache view with them. A body that already names {@code return_token_ids} (the client
 * asked, or said no) is left as it is ({@link JsonFields}).
 */
final class TokenIdsRequest {

    private static final String FIELD = "return_token_ids";

    private TokenIdsRequest() {
    }

    /** Whether the body names the field anywhere outside a string. */
    static boolean mentioned(byte[] body) {
        return JsonFields.mentioned(body, FIELD);
    }

    /** The body asking for token ids, or null when it names the field already or is no JSON object. */
    static byte[] ask(byte[] body) {
        return JsonFields.prepend(body, FIELD, "true");
    }
}
