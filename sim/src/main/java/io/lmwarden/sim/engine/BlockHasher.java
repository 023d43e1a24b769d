package io.lmwarden.sim.engine;

/** Chained block hashes: each full block's hash covers its parent's hash and its own token ids, as in vLLM. */
public final class BlockHasher {
    private BlockHasher() {
    }

    public static long[] chain(int[] tokens, int blockSize) {
        int full = tokens.length / blockSize;
        long[] out = new long[full];
        long parent = 0x5157454e33L;
        for (int b = 0; b < full; b++) {
            long h = parent;
            int base = b * blockSize;
            for (int i = 0; i < blockSize; i++) {
                h = mix(h ^ (tokens[base + i] & 0xffffffffL));
            }
            out[b] = h;
            parent = h;
        }
        return out;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
