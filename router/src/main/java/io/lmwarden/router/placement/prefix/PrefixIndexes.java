package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.PromptShape;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link PrefixIndex} per replica, sized from each replica's reported KV capacity; and for a replica whose engine
 * has a host-memory KV tier, a second one for that tier, sized from the tier's GiB. vLLM's offloading connector copies
 * every full prompt block to the tier as it is computed (write-through), so an accepted prompt is recorded in both;
 * each evicts on its own, least recently used.
 */
public final class PrefixIndexes {

    /** Router blocks are {@link PromptShape#BLOCK_CHARS} characters: about 16 tokens each. */
    public static final int TOKENS_PER_BLOCK = (int) (PromptShape.BLOCK_CHARS / PromptShape.CHARS_PER_TOKEN);

    /** A replica's KV capacity until its engine publishes cache_config_info: the reference replica's ~38k tokens. */
    public static final int DEFAULT_KV_CAPACITY_TOKENS = 38_400;

    private final int defaultCapacityTokens;
    private final Map<String, PrefixIndex> byReplica = new ConcurrentHashMap<>();
    private final Map<String, PrefixIndex> hostTierByReplica = new ConcurrentHashMap<>();

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

    /** The replica's host-tier index, or null when its engine reports no host tier. */
    PrefixIndex hostTierOf(ReplicaView replica) {
        long tokens = replica.metrics() == null ? 0 : replica.metrics().hostTier().capacityTokens();
        if (tokens <= 0) {
            return null;
        }
        int blocks = (int) Math.min(Integer.MAX_VALUE, tokens / TOKENS_PER_BLOCK);
        PrefixIndex index = hostTierByReplica.computeIfAbsent(replica.id(), id -> new PrefixIndex(blocks));
        if (blocks != index.capacityBlocks()) {
            index.setCapacityBlocks(blocks);
        }
        return index;
    }

    /** The engine accepted the prompt: after its prefill the replica holds it on the GPU, and in its host tier if it has one. */
    public void accepted(ReplicaView replica, PromptShape shape) {
        of(replica).insert(shape);
        PrefixIndex host = hostTierOf(replica);
        if (host != null) {
            host.insert(shape);
        }
    }

    /**
     * Tokens of the prompt the replica probably holds on the GPU, and beyond them the tokens its host tier probably
     * holds (what the engine would load rather than compute).
     */
    public HeldTokens.Held hold(ReplicaView replica, PromptShape shape) {
        int gpu = of(replica).heldBlocks(shape);
        PrefixIndex host = hostTierOf(replica);
        int both = host == null ? gpu : Math.max(gpu, host.heldBlocks(shape));
        return new HeldTokens.Held(both * TOKENS_PER_BLOCK, (both - gpu) * TOKENS_PER_BLOCK, HeldTokens.Source.ESTIMATED, -1);
    }

    /**
     * Tokens of the prompt the replica probably holds, on the GPU or in its host tier: what the engine reports as
     * cached ({@code cached_tokens} counts local and loaded tokens alike).
     */
    public int heldTokens(ReplicaView replica, PromptShape shape) {
        return hold(replica, shape).tokens();
    }

    /** A replica left the pool or restarted: its cache is gone. */
    public void forget(String replicaId) {
        byReplica.remove(replicaId);
        hostTierByReplica.remove(replicaId);
    }
}
