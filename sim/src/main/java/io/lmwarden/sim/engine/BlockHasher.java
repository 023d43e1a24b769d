package io.lmwarden.sim.engine;

/** Chained block hashes: each full block's hash covers its parent's hash and its own token ids, as in vLLM. */
public final class BlockHasher {
    private BlockHasher() {
    }

    public static long[] chain(int[] tokens, int blockSize) {
        return chain(tokens, blockSize, 0);
    }

    /** {@code salt} (0 = none) goes into the first block's hash, so it changes every hash of the chain, as vLLM's cache_salt does. */
    public static long[] chain(int[] tokens, int blockSize, long salt) {
        return chain(tokens, blockSize, salt, 0);
    }

    /**
     * With a LoRA adapter's key ({@code lora}, 0 = none) mixed into every block's hash, as vLLM puts the adapter's name
     * first in every block's extra keys ({@code _gen_lora_extra_hash_keys}): the same tokens under two adapters, or
     * under an adapter and the base model, share no block.
     */
    public static long[] chain(int[] tokens, int blockSize, long salt, long lora) {
        int full = tokens.length / blockSize;
        long[] out = new long[full];
        long parent = salt == 0 ? 0x5157454e33L : mix(0x5157454e33L ^ salt);
        for (int b = 0; b < full; b++) {
            long h = lora == 0 ? parent : mix(parent ^ lora);
            int base = b * blockSize;
            for (int i = 0; i < blockSize; i++) {
                h = mix(h ^ (tokens[base + i] & 0xffffffffL));
            }
            out[b] = h;
            parent = h;
        }
        return out;
    }

    /** The 64-bit value a cache_salt string mixes into the first block's hash; 0 for none. */
    public static long saltOf(String salt) {
        if (salt == null) {
            return 0;
        }
        long h = 0xcbf29ce484222325L;
        for (char c : salt.toCharArray()) {
            h = (h ^ c) * 0x100000001b3L;
        }
        return h == 0 ? 1 : h;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
