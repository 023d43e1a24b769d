package io.lmwarden.sim.http;

import io.lmwarden.sim.OutputLength;

import java.util.concurrent.atomic.AtomicLong;

/** Draws each reply's length for one replica: a deterministic sequence from the replica's seed. */
final class ReplyLengths {
    /** Spread of the realistic log-normal: about 90 % of replies fall within median / 3 … median × 3. */
    private static final double REALISTIC_SIGMA = 0.7;

    private final OutputLength mode;
    private final long seed;
    private final AtomicLong counter = new AtomicLong();

    ReplyLengths(OutputLength mode, long seed) {
        this.mode = mode;
        this.seed = seed;
    }

    /** Tokens of the next reply, 1..maxTokens. */
    int next(int maxTokens) {
        return switch (mode) {
            case FIXED -> maxTokens;
            case UNIFORM -> 1 + (int) Math.floorMod(nextBits(), (long) maxTokens);
            case REALISTIC -> {
                double gaussian = gaussian(nextBits(), nextBits());
                double length = OutputLength.REALISTIC_MEDIAN_TOKENS * Math.exp(REALISTIC_SIGMA * gaussian);
                yield (int) Math.max(1, Math.min(maxTokens, Math.round(length)));
            }
        };
    }

    private long nextBits() {
        long z = seed * 0x9E3779B97F4A7C15L + counter.getAndIncrement();
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Box–Muller from two 64-bit draws. */
    private static double gaussian(long a, long b) {
        double u1 = ((a >>> 11) + 1) * 0x1.0p-53;
        double u2 = (b >>> 11) * 0x1.0p-53;
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
