package io.lmwarden.bench.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * LoRA adapters beside the base model (a workload file's {@code adapters}): a share of the sessions runs on one of
 * {@code count} adapters, adapter k (1-based, by popularity) with probability ∝ 1 / k^zipf, and sends its name as
 * {@code model}; the rest run on the base model. Each session draws once, from its own seeded stream, so every variant
 * replays the same sessions on the same adapters.
 *
 * @param count adapters, named {@link #name(int)}; 0 = none (every session on the base model)
 * @param zipf  the Zipf exponent of their popularity (0: all alike; 1: the k-th is chosen 1/k as often as the first)
 * @param share the fraction of sessions on an adapter, in (0, 1]
 */
public record AdapterMix(int count, double zipf, double share) {

    public static final AdapterMix NONE = new AdapterMix(0, 1, 1);

    /** Names start with this: {@code lora-01} … {@code lora-16}. */
    public static final String NAME_PREFIX = "lora-";

    public AdapterMix {
        if (count < 0) {
            throw new IllegalArgumentException("adapters.count must be >= 0, got " + count);
        }
        if (!(zipf >= 0) || Double.isInfinite(zipf)) {
            throw new IllegalArgumentException("adapters.zipf must be a number >= 0, got " + zipf);
        }
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("adapters.share (the fraction of sessions on an adapter) must be in (0, 1], got " + share);
        }
    }

    public boolean present() {
        return count > 0;
    }

    /** Adapter {@code rank} (1 = the most popular), zero-padded so the names sort by rank. */
    public String name(int rank) {
        int width = String.valueOf(count).length();
        return NAME_PREFIX + String.format(Locale.ROOT, "%0" + Math.max(2, width) + "d", rank);
    }

    /** Every adapter's name, the most popular first. */
    public List<String> names() {
        List<String> out = new ArrayList<>(count);
        for (int k = 1; k <= count; k++) {
            out.add(name(k));
        }
        return out;
    }

    /** The probability that a session on an adapter is on adapter {@code rank}: (1 / rank^zipf) / Σ_k 1 / k^zipf. */
    public double popularity(int rank) {
        double total = 0;
        for (int k = 1; k <= count; k++) {
            total += weight(k);
        }
        return weight(rank) / total;
    }

    private double weight(int rank) {
        return 1 / Math.pow(rank, zipf);
    }

    /** One session's model: an adapter's name, or null for the base model. Two draws from {@code random}. */
    public String pick(SplittableRandom random) {
        double onAdapter = random.nextDouble();
        double which = random.nextDouble();
        if (!present() || onAdapter >= share) {
            return null;
        }
        double cumulative = 0;
        for (int k = 1; k < count; k++) {
            cumulative += popularity(k);
            if (which < cumulative) {
                return name(k);
            }
        }
        return name(count);
    }

    /** One line for reports. */
    public String describe() {
        return String.format(Locale.ROOT, "%d LoRA adapters (%s … %s), Zipf(%s) popularity, %.0f %% of sessions on an adapter",
                count, name(1), name(count), zipf, share * 100);
    }
}
