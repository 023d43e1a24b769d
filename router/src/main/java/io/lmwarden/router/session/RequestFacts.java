package io.lmwarden.router.session;


import io.lmwarden.common.api.ApiDialect;
import java.util.Optional;

/**
 * What placement needs to know of one request, read from its body and headers without building an
 * object tree: the model, whether it streams, its session key, and the shape of its prompt.
 *
 * @param modelKey   the model the name serves, the same for all its aliases ({@code model} itself until the replicas'
 *                   names are known): what the session is pinned under
 * @param promptText the canonical prompt's text, for the prefix-break diagnosis only, released once it has looked
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
        JsonSpans cacheSaltSpans,
        String modelKey,
        PromptText promptText) {

    /** Pinned under the name itself, without the prompt's text. */
    public RequestFacts(ApiDialect dialect, String model, boolean stream, SessionKey sessionKey, PromptShape shape,
                        int maxTokens, Optional<String> pinnedReplica, Optional<Integer> dataParallelRank, Tenant tenant,
                        JsonSpans cacheSaltSpans) {
        this(dialect, model, stream, sessionKey, shape, maxTokens, pinnedReplica, dataParallelRank, tenant, cacheSaltSpans, model,
                PromptText.NONE);
    }

    /** Without a tenant and without a body to edit: what placement-only tests build. */
    public RequestFacts(ApiDialect dialect, String model, boolean stream, SessionKey sessionKey, PromptShape shape,
                        int maxTokens, Optional<String> pinnedReplica, Optional<Integer> dataParallelRank) {
        this(dialect, model, stream, sessionKey, shape, maxTokens, pinnedReplica, dataParallelRank, Tenant.NONE, new JsonSpans());
    }

    /**
     * The same request as a LoRA adapter's: its prompt's blocks keyed by the adapter (its model key), so that the prefix
     * view never predicts a hit from another adapter's or the base model's identical prefix. Call after
     * {@link #withModelKey}.
     */
    public RequestFacts asAdapter() {
        return new RequestFacts(dialect, model, stream, sessionKey, shape.keyedBy(modelKey), maxTokens, pinnedReplica,
                dataParallelRank, tenant, cacheSaltSpans, modelKey, promptText);
    }

    /** The same request, pinned under the key of the model its name serves (see {@code ReplicaPool.modelKey}). */
    public RequestFacts withModelKey(String key) {
        return key.equals(modelKey) ? this : new RequestFacts(dialect, model, stream, sessionKey, shape, maxTokens, pinnedReplica,
                dataParallelRank, tenant, cacheSaltSpans, key, promptText);
    }
}
