package io.lmwarden.bench.workload;

import java.util.SplittableRandom;

/**
 * Deterministic pseudo-words: the same (seed, label, size) always gives the same text, and different
 * labels give texts that share no prefix, which is what makes a session's first message unique.
 */
public final class PseudoText {

    private static final String[] SYLLABLES = {
        "ka", "lo", "mi", "ne", "tu", "ra", "si", "po", "de", "fa", "gu", "he", "jo", "va", "ze", "qui",
        "bar", "con", "dis", "fer", "gal", "hin", "lek", "mor", "nat", "pul", "ros", "sta", "tor", "ven"
    };

    private PseudoText() {
    }

    /** Text of exactly {@code tokens × 4} characters, words separated by single spaces. */
    public static String of(long seed, String label, int tokens) {
        int chars = tokens * WorkloadSpec.CHARS_PER_TOKEN;
        SplittableRandom random = new SplittableRandom(mix(seed, label));
        StringBuilder text = new StringBuilder(chars + 16);
        while (text.length() < chars) {
            int syllables = 1 + random.nextInt(3);
            for (int i = 0; i < syllables; i++) {
                text.append(SYLLABLES[random.nextInt(SYLLABLES.length)]);
            }
            text.append(' ');
        }
        text.setLength(chars);
        if (chars > 0) {
            text.setCharAt(chars - 1, '.');
        }
        return text.toString();
    }

    /** A 64-bit hash of a seed and a label: independent random streams per label. */
    public static long mix(long seed, String label) {
        long h = seed * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < label.length(); i++) {
            h = (h ^ label.charAt(i)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
