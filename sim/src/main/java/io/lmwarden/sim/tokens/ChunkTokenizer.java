package io.lmwarden.sim.tokens;

import java.util.Arrays;

/**
 * A deterministic stand-in for a real tokenizer, about four characters per token. Special markers such as
 * {@code <|im_start|>} are one token each; a newline ends the current token; otherwise a token is the next
 * four characters. Equal text prefixes therefore give equal token prefixes, and text after a newline or a
 * marker tokenizes the same wherever it appears (so a re-sent reply hashes like the generated one).
 * Token ids are hashes of the token's characters. One pass, no per-character allocation.
 */
public final class ChunkTokenizer {
    private static final int MAX_CHARS = 4;
    private static final int MAX_SPECIAL = 40;

    private ChunkTokenizer() {
    }

    public static int[] tokenize(CharSequence text) {
        int n = text.length();
        int[] out = new int[n / MAX_CHARS + 16];
        int count = 0;
        int i = 0;
        while (i < n) {
            int end = tokenEnd(text, i, n);
            if (count == out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            out[count++] = hash(text, i, end);
            i = end;
        }
        return Arrays.copyOf(out, count);
    }

    public static int count(CharSequence text) {
        int n = text.length();
        int count = 0;
        for (int i = 0; i < n; i = tokenEnd(text, i, n)) {
            count++;
        }
        return count;
    }

    private static int tokenEnd(CharSequence s, int i, int n) {
        int special = specialEnd(s, i, n);
        if (special > 0) {
            return special;
        }
        int j = i;
        while (j < n && j - i < MAX_CHARS) {
            char c = s.charAt(j);
            if (j > i && c == '<' && specialEnd(s, j, n) > 0) {
                break;
            }
            j++;
            if (c == '\n') {
                break;
            }
        }
        return j;
    }

    /** End of a {@code <|...|>} marker starting at {@code i}, or -1. */
    private static int specialEnd(CharSequence s, int i, int n) {
        if (s.charAt(i) != '<' || i + 1 >= n || s.charAt(i + 1) != '|') {
            return -1;
        }
        int limit = Math.min(n - 1, i + MAX_SPECIAL);
        for (int j = i + 2; j < limit; j++) {
            char c = s.charAt(j);
            if (c == '|' && s.charAt(j + 1) == '>') {
                return j + 2;
            }
            if (c == '\n' || c == '<' || c == ' ') {
                return -1;
            }
        }
        return -1;
    }

    private static int hash(CharSequence s, int from, int to) {
        int h = 0x811c9dc5;
        for (int k = from; k < to; k++) {
            h = (h ^ s.charAt(k)) * 0x01000193;
        }
        return h;
    }
}
