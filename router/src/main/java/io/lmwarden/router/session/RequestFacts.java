package io.lmwarden.router.session;


import io.lmwarden.common.api.ApiDialect;
import java.util.Optional;

/**
 * What placement needs to know of one request, read from its body and headers without building an
 * object tree: the model, whether it streams, its session key, and the shape of its prompt.
 */
public record RequestFacts(
        ApiDialect dialect,
        String model,
        boolean stream,
        SessionKey sessionKey,
        PromptShape shape,
        int maxTokens,
        Optional<String> pinnedReplica,
        Optional<Integer> dataParallelRank,
        Tenant tenant,
        JsonSpans cacheSaltSpans) {

    /** Without a tenant and without a body to edit: what placement-only tests build. */
    public RequestFacts(ApiDialect dialect, String model, boolean stream, SessionKey sessionKey, PromptShape shape,
                        int maxTokens, Optional<String> pinnedReplica, Optional<Integer> dataParallelRank) {
        this(dialect, model, stream, sessionKey, shape, maxTokens, pinnedReplica, dataParallelRank, Tenant.NONE, new JsonSpans());
    }
}
