package io.lmwarden.sim;

import java.util.List;

/**
 * Everything that makes one simulated GPU replica what it is: scheduler limits, KV cache size, the linear step-cost
 * model and the host-memory KV tier. All calibration constants live here and only here (see sim/README.md for where
 * each number comes from).
 *
 * <p>Step duration (simulated ms) = {@code stepBaseMs + prefillMsPerToken * prefillTokens
 * + prefillAttentionMsPerKiloToken * Σ(prefill tokens × context they attend to) / 1000
 * + decodeMsPerSeq * decodingSequences + contextMsPerKiloToken * contextTokens / 1000}.
 *
 * @param kvBytesPerToken KV bytes one token takes (layers × KV heads × head dim × 2 (K and V) × dtype bytes): converts
 *                        the host tier's GiB to tokens and sizes its transfers
 * @param kvOffloadGib    size of the host-memory KV tier (vLLM's {@code --kv-offloading-size}, GiB); 0 = none
 * @param offloadGBps     host↔GPU copy bandwidth of that tier, GB/s (10^9 bytes per second) in each direction
 * @param prefillAttentionMsPerKiloToken attention cost of a prefill token per 1000 tokens of context it attends to (the
 *                        quadratic part of prefill); 0 where the linear prefill cost was calibrated with it folded in
 */
public record SimProfile(String name, int maxNumSeqs, int maxNumBatchedTokens, int kvBlocks, int blockSize,
                         int maxModelLen, double stepBaseMs, double prefillMsPerToken, double decodeMsPerSeq,
                         double contextMsPerKiloToken, double prefillAttentionMsPerKiloToken, long kvBytesPerToken,
                         double kvOffloadGib, double offloadGBps) {

    public static final String A4000_QWEN3_4B = "a4000-qwen3-4b";
    public static final String H100_QWEN3_CODER_30B_A3B = "h100-qwen3-coder-30b-a3b";
    public static final String TINY = "tiny";
    private static final List<String> KNOWN = List.of(A4000_QWEN3_4B, H100_QWEN3_CODER_30B_A3B, TINY);
    private static final double GIB = 1024.0 * 1024 * 1024;

    public SimProfile {
        if (maxNumSeqs < 1 || maxNumBatchedTokens < 1 || kvBlocks < 1 || blockSize < 1 || maxModelLen < 2
                || kvBytesPerToken < 1) {
            throw new IllegalArgumentException("profile " + name + ": limits must be positive");
        }
        if (stepBaseMs < 0 || prefillMsPerToken < 0 || decodeMsPerSeq < 0 || contextMsPerKiloToken < 0
                || prefillAttentionMsPerKiloToken < 0) {
            throw new IllegalArgumentException("profile " + name + ": cost constants must not be negative");
        }
        if (!(kvOffloadGib >= 0) || Double.isInfinite(kvOffloadGib) || !(offloadGBps > 0) || Double.isInfinite(offloadGBps)) {
            throw new IllegalArgumentException("profile " + name + ": kvOffloadGib must be >= 0 and offloadGBps > 0");
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
            // (bench/results/calibrated-k10-r3/summary.md), attention included;
            // attention reads 147 KB per context token -> ~0.33 ms per 1000 context tokens;
            // vLLM defaults: max_num_seqs 32 (WORKLOAD: spill threshold 8 = a quarter), 2048 batched tokens;
            // host tier off; PCIe 4.0 x16 ~25 GB/s when it is turned on.
            case A4000_QWEN3_4B -> new SimProfile(A4000_QWEN3_4B, 32, 2048, 2400, 16, 32768,
                    20.0, 0.3, 0.4, 0.33, 0.0, 147_456L, 0.0, 25.0);
            // Qwen3-Coder-30B-A3B-Instruct-FP8 on one H100 SXM 80 GB (sim/README.md, "Profiles"): 48 layers x 4 KV heads x
            // 128 x 2 x bf16 = 98,304 B of KV per token; ~31 GB of FP8 weights in 0.9 x 80 GB leave ~39 GB -> 400k tokens;
            // vLLM's defaults on a >= 70 GiB card: 8192 batched tokens, 1024 seqs; 262,144 native context;
            // bs-1 ITL ~5.8 ms (published, an A3B FP8 MoE on H100) -> stepBaseMs 5.5 + decodeMsPerSeq 0.15;
            // 6.6 GFLOP/token (3.3B active) at ~300 TFLOP/s -> 0.022 ms/token; attention 786k FLOP per token per context
            // token at ~450 TFLOP/s -> 0.00175 ms per 1000 context tokens; KV reads 98 KB/token at ~2.35 TB/s -> 0.042;
            // host tier off; PCIe 5.0 x16 ~50 GB/s (vLLM's measured one-way offload rate) when it is turned on.
            case H100_QWEN3_CODER_30B_A3B -> new SimProfile(H100_QWEN3_CODER_30B_A3B, 1024, 8192, 25_000, 16, 262_144,
                    5.5, 0.022, 0.15, 0.042, 0.00175, 98_304L, 0.0, 50.0);
            // Small and fast, for tests: 256 blocks of 16 = 4096 tokens.
            case TINY -> new SimProfile(TINY, 4, 512, 256, 16, 4096, 2.0, 0.02, 0.1, 0.05, 0.0, 147_456L, 0.0, 25.0);
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

    /** Bytes of KV one block holds. */
    public long kvBytesPerBlock() {
        return kvBytesPerToken * blockSize;
    }

    /** Blocks the host tier holds: {@code kvOffloadGib} GiB of whole blocks; 0 when there is no tier. */
    public int hostTierBlocks() {
        return (int) Math.min(Integer.MAX_VALUE, (long) (kvOffloadGib * GIB / kvBytesPerBlock()));
    }

    public boolean hasHostTier() {
        return hostTierBlocks() > 0;
    }

    /** Simulated seconds to copy {@code bytes} between host and GPU at the tier's bandwidth. */
    public double transferSeconds(long bytes) {
        return bytes / (offloadGBps * 1e9);
    }

    public SimProfile withMaxNumSeqs(int n) {
        return copy(n, maxNumBatchedTokens, kvBlocks, blockSize, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, kvOffloadGib, offloadGBps);
    }

    /** Like vLLM, one request of max_model_len must fit the cache, so a smaller cache lowers max_model_len. */
    public SimProfile withKvBlocks(int b) {
        return copy(maxNumSeqs, maxNumBatchedTokens, b, blockSize, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, kvOffloadGib, offloadGBps);
    }

    /** Keeps the KV capacity in tokens about the same when only the block size changes. */
    public SimProfile withBlockSize(int s) {
        if (s < 1) {
            throw new IllegalArgumentException("block size must be positive");
        }
        int blocks = Math.max(1, kvCapacityTokens() / s);
        return copy(maxNumSeqs, maxNumBatchedTokens, blocks, s, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, kvOffloadGib, offloadGBps);
    }

    public SimProfile withMaxModelLen(int len) {
        return copy(maxNumSeqs, maxNumBatchedTokens, kvBlocks, blockSize, len, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, kvOffloadGib, offloadGBps);
    }

    public SimProfile withMaxNumBatchedTokens(int n) {
        return copy(maxNumSeqs, n, kvBlocks, blockSize, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, kvOffloadGib, offloadGBps);
    }

    /** The step-cost constants (ms, ms per token, ms per sequence, ms per 1000 context tokens, ms per prefill token per 1000). */
    public SimProfile withCosts(double base, double prefill, double decode, double context, double prefillAttention) {
        return copy(maxNumSeqs, maxNumBatchedTokens, kvBlocks, blockSize, maxModelLen, base, prefill, decode, context,
                prefillAttention, kvBytesPerToken, kvOffloadGib, offloadGBps);
    }

    /** The same engine with prefill (its per-token and its attention cost) {@code factor} times as expensive. */
    public SimProfile withPrefillCostTimes(double factor) {
        return withCosts(stepBaseMs, prefillMsPerToken * factor, decodeMsPerSeq, contextMsPerKiloToken, prefillAttentionMsPerKiloToken * factor);
    }

    public SimProfile withKvBytesPerToken(long bytes) {
        return copy(maxNumSeqs, maxNumBatchedTokens, kvBlocks, blockSize, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, bytes, kvOffloadGib, offloadGBps);
    }

    /** A host-memory KV tier of {@code gib} GiB (vLLM's {@code --kv-offloading-size}); 0 turns it off. */
    public SimProfile withKvOffloadGib(double gib) {
        return copy(maxNumSeqs, maxNumBatchedTokens, kvBlocks, blockSize, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, gib, offloadGBps);
    }

    public SimProfile withOffloadGBps(double gbps) {
        return copy(maxNumSeqs, maxNumBatchedTokens, kvBlocks, blockSize, maxModelLen, stepBaseMs, prefillMsPerToken, decodeMsPerSeq,
                contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, kvOffloadGib, gbps);
    }

    private SimProfile copy(int seqs, int batched, int blocks, int bs, int len, double base, double prefill, double decode,
                            double context, double prefillAttention, long bytesPerToken, double offloadGib, double gbps) {
        return new SimProfile(name, seqs, batched, blocks, bs, len, base, prefill, decode, context, prefillAttention,
                bytesPerToken, offloadGib, gbps);
    }

    /** Simulated milliseconds one engine step takes. */
    public double stepMillis(int prefillTokens, int decodingSeqs, long contextTokens) {
        return stepMillis(prefillTokens, 0, decodingSeqs, contextTokens);
    }

    /**
     * Simulated milliseconds one engine step takes; {@code prefillAttendedTokens} is Σ over prefill chunks of (chunk
     * tokens × context tokens they attend to), the quadratic part of prefill.
     */
    public double stepMillis(int prefillTokens, double prefillAttendedTokens, int decodingSeqs, long contextTokens) {
        return stepBaseMs + prefillMsPerToken * prefillTokens + prefillAttentionMsPerKiloToken * prefillAttendedTokens / 1000.0
                + decodeMsPerSeq * decodingSeqs + contextMsPerKiloToken * contextTokens / 1000.0;
    }
}
