package io.lmwarden.router.kvevents;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The router's own key for a KV block: a 64-bit hash chained over full blocks of token ids, the way vLLM chains its
 * block hashes, but computed by the router. vLLM's own hash (SHA-256 of a pickle, or xxHash, seeded from
 * {@code PYTHONHASHSEED}, configurable per deployment) is not reproduced: when a {@code BlockStored} arrives, its
 * token ids and its parent's key give the router's key, and the index maps the engine's hash to it (llm-d's
 * kv-cache and Dynamo's KV router do the same). A request's keys come from its token ids alone, so the two meet.
 * <p>
 * The chain starts from a root made of what vLLM mixes into the first block besides tokens: the first block's extra
 * keys in vLLM's order, LoRA name then cache salt, so two tenants' identical prompts have different keys, as they
 * have different hashes in the engine. Multimodal prompts (image ids in the extra keys of later blocks) are not keyed.
 */
public final class BlockKeys {

    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long SEED = 0x4C4D5761726465EL; // "LMWarde"

    private BlockKeys() {
    }

    /** The root for a prompt with neither LoRA nor salt. */
    public static long root() {
        return root(List.of());
    }

    /** The root for a request: its LoRA adapter's name and its {@code cache_salt}, either may be null. */
    public static long root(String loraName, String cacheSalt) {
        List<String> keys = new ArrayList<>(2);
        if (loraName != null) {
            keys.add(loraName);
        }
        if (cacheSalt != null) {
            keys.add(cacheSalt);
        }
        return root(keys);
    }

    /** The root from the first block's extra keys as the engine sent them ({@link KvEvent.BlockStored}). */
    public static long root(List<String> firstBlockExtraKeys) {
        long h = SEED;
        for (String key : firstBlockExtraKeys) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            h = round(h, bytes.length);
            for (byte b : bytes) {
                h = round(h, b & 0xff);
            }
        }
        return mix(h ^ firstBlockExtraKeys.size());
    }

    /** The key of the block {@code tokens[from, from + length)} whose parent block has key {@code parent}. */
    public static long next(long parent, int[] tokens, int from, int length) {
        long h = parent * P3 + length;
        for (int i = from, end = from + length; i < end; i++) {
            h = round(h, tokens[i] & 0xffffffffL);
        }
        return mix(h);
    }

    /** The keys of every full block of {@code tokens}, chained from {@code root}; a partial last block has none. */
    public static long[] chain(long root, int[] tokens, int blockSize) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
        }
        long[] keys = new long[tokens.length / blockSize];
        long parent = root;
        for (int b = 0; b < keys.length; b++) {
            parent = next(parent, tokens, b * blockSize, blockSize);
            keys[b] = parent;
        }
        return keys;
    }

    private static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    /** MurmurHash3's 64-bit finaliser: every input bit reaches every output bit. */
    private static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
