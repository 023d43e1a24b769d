package io.lmwarden.sim.tokens;

import java.util.SplittableRandom;

/**
 * Deterministic output text: words, exactly four characters per output token, so that the text tokenizes
 * back into exactly the generated tokens when a client sends the reply again.
 */
public final class FillerText {
    private static final String[] WORDS = {"the", "model", "reads", "code", "and", "then", "writes", "a", "small",
        "patch", "for", "each", "file", "test", "passes", "build", "runs", "cache", "stays", "warm", "on", "this",
        "replica", "so", "prefill", "is", "short", "agent", "session", "step", "next", "tool", "call", "result"};

    private FillerText() {
    }

    /** Text of exactly {@code 4 * tokens} characters, no newlines, starting and ending with a letter. */
    public static String of(int tokens, long seed) {
        int len = tokens * 4;
        StringBuilder sb = new StringBuilder(len + 12);
        SplittableRandom random = new SplittableRandom(seed);
        while (sb.length() < len) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(WORDS[random.nextInt(WORDS.length)]);
        }
        sb.setLength(len);
        if (sb.charAt(len - 1) == ' ') {
            sb.setCharAt(len - 1, '.');
        }
        return sb.toString();
    }
}
