package io.lmwarden.sim;

import java.util.List;

/**
 * Everything that makes one simulated GPU replica what it is: scheduler limits, KV cache size and the
 * linear step-cost model. All calibration constants live here and only here (see sim/README.md for
 * where each number comes from).
 *
 * <p>Step duration (simulated ms) = {@code stepBaseMs + prefillMsPerToken * prefillTokens
 * + decodeMsPerSeq * decodingSequences + contextMsPerKiloToken * contextTokens / 1000}.
 */
public record SimProfile(String name, int maxNumSeqs, int maxNumBatchedTokens, int kvBlocks, int blockSize,
                         int maxModelLen, double stepBaseMs, double prefillMsPerToken, double decodeMsPerSeq,
                         double contextMsPerKiloToken) {

    public static final String A4000_QWEN3_4B = "a4000-qwen3-4b";
    public static final String TINY = "tiny";
    private static final List<String> KNOWN = List.of(A4000_QWEN3_4B, TINY);

    public SimProfile {
        if (maxNumSeqs < 1 || maxNumBatchedTokens < 1 || kvBlocks < 1 || blockSize < 1 || maxModelLen < 2) {
            throw new IllegalArgumentException("profile " + name + ": limits must be positive");
        }
        if (stepBaseMs < 0 || prefillMsPerToken < 0 || decodeMsPerSeq < 0 || contextMsPerKiloToken < 0) {
            throw new IllegalArgumentException("profile " + name + ": cost constants must not be negative");
        }
        // vLLM refuses to start when one max_model_len request cannot fit the KV cache; lower it instead.
        maxModelLen = Math.min(maxModelLen, Math.max(2, kvBlocks * blockSize));
    }

    public static SimProfile named(String name) {
        return switch (name) {
            // Qwen3-4B-Instruct-2507 bf16 on one RTX A4000 16 GiB (WORKLOAD.md, "Calibration facts"):
            // 147,456 B of KV per token, ~8 GB weights -> ~38k tokens of KV = 2400 blocks of 16;
            // weights read per step 8 GB / 448 GB/s ~ 18-20 ms -> stepBaseMs 20;
            // prefill: ~8 GFLOP/token at ~40 TFLOP/s effective would be 0.2 ms/token (~4.7k tokens/s); calibrated
            // to 0.3 ms/token (~3.2k tokens/s, the low end of the estimate) against the published cold TTFBs
            // (bench/README.md, "Calibration");
            // attention reads 147 KB per context token -> ~0.33 ms per 1000 context tokens;
            // vLLM defaults: max_num_seqs 32 (WORKLOAD: spill threshold 8 = a quarter), 2048 batched tokens.
            case A4000_QWEN3_4B -> new SimProfile(A4000_QWEN3_4B, 32, 2048, 2400, 16, 32768,
                    20.0, 0.3, 0.4, 0.33);
            // Small and fast, for tests: 256 blocks of 16 = 4096 tokens.
            case TINY -> new SimProfile(TINY, 4, 512, 256, 16, 4096, 2.0, 0.02, 0.1, 0.05);
            default -> throw new IllegalArgumentException(
                    "unknown simulator profile '" + name + "'; known profiles: " + String.join(", ", KNOWN));
        };
    }

    public static SimProfile defaultProfile() {
        return named(A4000_QWEN3_4B);
    }

    public static List<String> knownNames() {
        return KNOWN;
    }

    public int kvCapacityTokens() {
        return kvBlocks * blockSize;
    }

    public SimProfile withMaxNumSeqs(int n) {
        return new SimProfile(name, n, maxNumBatchedTokens, kvBlocks, blockSize, maxModelLen,
                stepBaseMs, prefillMsPerToken, decodeMsPerSeq, contextMsPerKiloToken);
    }

    /** Like vLLM, one request of max_model_len must fit the cache, so a smaller cache lowers max_model_len. */
    public SimProfile withKvBlocks(int b) {
        return new SimProfile(name, maxNumSeqs, maxNumBatchedTokens, b, blockSize, maxModelLen,
                stepBaseMs, prefillMsPerToken, decodeMsPerSeq, contextMsPerKiloToken);
    }

    /** Keeps the KV capacity in tokens about the same when only the block size changes. */
    public SimProfile withBlockSize(int s) {
        if (s < 1) {
            throw new IllegalArgumentException("block size must be positive");
        }
        int blocks = Math.max(1, kvCapacityTokens() / s);
        return new SimProfile(name, maxNumSeqs, maxNumBatchedTokens, blocks, s, maxModelLen,
                stepBaseMs, prefillMsPerToken, decodeMsPerSeq, contextMsPerKiloToken);
    }

    public SimProfile withMaxModelLen(int len) {
        return new SimProfile(name, maxNumSeqs, maxNumBatchedTokens, kvBlocks, blockSize, len,
                stepBaseMs, prefillMsPerToken, decodeMsPerSeq, contextMsPerKiloToken);
    }

    public SimProfile withMaxNumBatchedTokens(int n) {
        return new SimProfile(name, maxNumSeqs, n, kvBlocks, blockSize, maxModelLen,
                stepBaseMs, prefillMsPerToken, decodeMsPerSeq, contextMsPerKiloToken);
    }

    /** Simulated milliseconds one engine step takes. */
    public double stepMillis(int prefillTokens, int decodingSeqs, long contextTokens) {
        return stepBaseMs + prefillMsPerToken * prefillTokens + decodeMsPerSeq * decodingSeqs
                + contextMsPerKiloToken * contextTokens / 1000.0;
    }
}
