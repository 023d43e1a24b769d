package io.lmwarden.bench.trace;

import io.lmwarden.bench.workload.PseudoText;

/**
 * The text of a trace request: block i is the text of hash id {@code hash_ids[i]} ({@code blockSize} tokens, the same for
 * every request that names that id), the last block cut to what {@code input_length} leaves; a request with fewer ids
 * than its length needs is filled with text of its own.
 */
public final class TracePrompt {

    private TracePrompt() {
    }

    public static String of(TraceRequest r, int blockSize, long seed) {
        StringBuilder text = new StringBuilder(r.inputLength() * io.lmwarden.bench.workload.WorkloadSpec.CHARS_PER_TOKEN + 16);
        int left = r.inputLength();
        for (int i = 0; i < r.hashIds().length && left > 0; i++) {
            int tokens = Math.min(blockSize, left);
            text.append(PseudoText.of(seed, "trace-block-" + r.hashIds()[i], blockSize), 0,
                    tokens * io.lmwarden.bench.workload.WorkloadSpec.CHARS_PER_TOKEN);
            left -= tokens;
        }
        if (left > 0) {
            text.append(PseudoText.of(seed, "trace-line-" + r.line(), left));
        }
        return text.toString();
    }
}
