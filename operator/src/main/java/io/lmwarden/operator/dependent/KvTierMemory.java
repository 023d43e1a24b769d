package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;

/**
 * The memory of a vLLM replica pod with a host-memory KV tier: what vLLM needs without the tier (the user's
 * {@code resources} memory, else {@link #DEFAULT_BASE}) plus the tier, for request and limit alike.
 *
 * <p>vLLM allocates the tier as pinned (page-locked) host memory when the engine starts: it counts against
 * the container's memory cgroup, cannot be swapped or reclaimed, and is {@code sizeGiB} per engine (vLLM's
 * {@code --kv-offloading-size} is the total over the engine's tensor-parallel ranks; each data-parallel rank
 * has its own). A data-parallel server with N engines therefore holds N × sizeGiB. The request makes the
 * scheduler reserve it on the node, the limit keeps the pod from being OOM-killed for using it.
 */
final class KvTierMemory {
    /** vLLM's process without a tier: Python, CUDA context, torch.compile workers, tokenizer, /dev/shm. */
    static final Quantity DEFAULT_BASE = new Quantity("16Gi");
    private static final BigDecimal MIB = BigDecimal.valueOf(1L << 20);

    private final long tierMiB;

    KvTierMemory(EffectiveSpec.KvOffload offload, int engines) {
        this.tierMiB = BigDecimal.valueOf(offload.sizeGiB()).multiply(BigDecimal.valueOf(1024))
                .setScale(0, RoundingMode.CEILING).longValueExact() * engines;
    }

    /** The tier alone, in MiB. */
    long tierMiB() {
        return tierMiB;
    }

    /** Request: the user's memory request (or limit, or the default) plus the tier. */
    Quantity request(Map<String, Quantity> userRequests, Map<String, Quantity> userLimits) {
        return plusTier(first(userRequests, userLimits));
    }

    /** Limit: the user's memory limit (or request, or the default) plus the tier. */
    Quantity limit(Map<String, Quantity> userRequests, Map<String, Quantity> userLimits) {
        return plusTier(first(userLimits, userRequests));
    }

    private Quantity plusTier(Quantity base) {
        long baseMiB = Quantity.getAmountInBytes(base).divide(MIB, 0, RoundingMode.CEILING).longValueExact();
        return new Quantity((baseMiB + tierMiB) + "Mi");
    }

    /** vLLM's own memory in MiB without a tier: the user's memory request (or limit), else {@link #DEFAULT_BASE}. */
    static long baseMiB(Map<String, Quantity> userRequests, Map<String, Quantity> userLimits) {
        return Quantity.getAmountInBytes(first(userRequests, userLimits)).divide(MIB, 0, RoundingMode.CEILING).longValueExact();
    }

    private static Quantity first(Map<String, Quantity> preferred, Map<String, Quantity> fallback) {
        return Optional.ofNullable(preferred.get("memory")).or(() -> Optional.ofNullable(fallback.get("memory"))).orElse(DEFAULT_BASE);
    }
}
