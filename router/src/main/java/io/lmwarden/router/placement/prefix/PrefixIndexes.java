package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.PromptShape;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One {@link PrefixIndex} per replica, sized from each replica's reported KV capacity. */
public final class PrefixIndexes {

    /** Router blocks are {@link PromptShape#BLOCK_CHARS} characters: about 16 tokens each. */
    public static final int TOKENS_PER_BLOCK = (int) (PromptShape.BLOCK_CHARS / PromptShape.CHARS_PER_TOKEN);

    /** A replica's KV capacity until its engine publishes cache_config_info: the reference replica's ~38k tokens. */
    public static final int DEFAULT_KV_CAPACITY_TOKENS = 38_400;

    private final int defaultCapacityTokens;
    private final Map<String, PrefixIndex> byReplica = new ConcurrentHashMap<>();

    public PrefixIndexes(int defaultCapacityTokens) {
        this.defaultCapacityTokens = defaultCapacityTokens;
    }

    public PrefixIndex of(ReplicaView replica) {
        PrefixIndex index = byReplica.computeIfAbsent(replica.id(), id -> new PrefixIndex(defaultCapacityTokens / TOKENS_PER_BLOCK));
        if (replica.metrics() != null && replica.metrics().kvCapacityTokens() > 0) {
            int blocks = (int) (replica.metrics().kvCapacityTokens() / TOKENS_PER_BLOCK);
            if (blocks != index.capacityBlocks()) {
                index.setCapacityBlocks(blocks);
            }
        }
        return index;
    }

    /** Tokens of the prompt the replica probably holds. */
    public int heldTokens(ReplicaView replica, PromptShape shape) {
        return of(replica).heldBlocks(shape) * TOKENS_PER_BLOCK;
    }

    /** A replica left the pool or restarted: its cache is gone. */
    public void forget(String replicaId) {
        byReplica.remove(replicaId);
    }
}
