package io.lmwarden.router.advisor;

import io.lmwarden.router.pool.HostTierMetrics;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The advisor's what-if model on a scripted history of two sessions on one replica, with one key per block of 16 tokens
 * and the shares worked out by hand (in the comments: each lookup's LRU stack distance, the distinct keys used since).
 *
 * <pre>
 * step 1 (t=0s)  A   = keys 1 2 3        first sight: nothing served at any size
 * step 2 (t=1s)  B   = keys 11 12        first sight
 * step 3 (t=2s)  A'  = keys 1 2 3 4      distances 2 3 4 (prefix max 2 3 4), key 4 new
 * step 4 (t=3s)  B'  = keys 11 12 13     distances 4 5    (prefix max 4 5),   key 13 new
 * step 5 (t=4s)  A'' = keys 1 2 3 4 5    distances 3 4 5 6 (prefix max 3 4 5 6), key 5 new
 * </pre>
 * A cache of C keys serves a key whose prefix max is below C: C=3 → 16 tokens, 4 → 48, 5 → 96, 6 → 128, ≥7 → 144.
 */
class TierModelTest {

    private static final int TOKENS_PER_BLOCK = 16;

    private static TracedStep step(long atMillis, long cached, long... keys) {
        return new TracedStep(atMillis, "r0", (long) keys.length * TOKENS_PER_BLOCK, cached, keys.length, keys);
    }

    private static final List<TracedStep> HISTORY = List.of(
            step(0, 0, 1, 2, 3),
            step(1000, 0, 11, 12),
            step(2000, 16, 1, 2, 3, 4),
            step(3000, 0, 11, 12, 13),
            step(4000, 0, 1, 2, 3, 4, 5));

    @Test
    void servedTokensAtEveryCapacityAreTheLruStacksPrefixDistances() {
        ReuseProfile p = ReuseProfile.replay(HISTORY, 0, 1, 20);
        assertThat(p.promptTokens()).isEqualTo(17 * 16);
        assertThat(p.reusableTokens()).isEqualTo(144);
        double[] expected = {0, 0, 0, 16, 48, 96, 128, 144, 144, 144};
        for (int c = 0; c < expected.length; c++) {
            assertThat(p.servedTokens(c)).as("cache of %d keys", c).isEqualTo(expected[c]);
        }
        // Beyond the largest capacity asked for, nothing more is counted.
        assertThat(ReuseProfile.replay(HISTORY, 0, 1, 5).servedTokens(100)).isEqualTo(96);
    }

    @Test
    void warmUpStepsFillTheCacheButAreNotCounted() {
        ReuseProfile p = ReuseProfile.replay(HISTORY, 3, 1, 20);
        // Steps 4 and 5 only: 48 + 80 prompt tokens; B' serves 16 at C=5, 32 at C=6; A'' 16/32/48/64 at C=4/5/6/7.
        assertThat(p.promptTokens()).isEqualTo(128);
        assertThat(p.scoredSteps()).isEqualTo(2);
        assertThat(p.servedTokens(4)).isEqualTo(16);
        assertThat(p.servedTokens(5)).isEqualTo(48);
        assertThat(p.servedTokens(6)).isEqualTo(80);
        assertThat(p.servedTokens(7)).isEqualTo(96);
    }

    @Test
    void aPromptsStartOutlivesItsTail() {
        // The start of a prompt is used last, so with room for two keys the next step finds its first two.
        List<TracedStep> h = List.of(step(0, 0, 1, 2, 3, 4), step(1, 0, 1, 2, 3, 4));
        assertThat(ReuseProfile.replay(h, 1, 1, 10).servedTokens(2)).isEqualTo(32);
    }

    @Test
    void theAdvisorFitsTheGpuToWhatWasMeasuredAndPricesEachTierSize() {
        StepTrace trace = new StepTrace(1, Duration.ofHours(1), 1_000);
        TierAdvisor advisor = new TierAdvisor(trace, List::of, 0, 1);
        // One replica of 4 keys (64 tokens) of GPU KV and no tier. The first quarter of the window (step 1) only warms:
        // counted are steps 2-5, 224 prompt tokens, of which the engine reported 16 cached (step 3).
        TierAdvice a = advisor.advise(HISTORY, Map.of("r0", new TierAdvisor.Capacity(64, 0, HostTierMetrics.NONE)));
        assertThat(a.steps()).isEqualTo(4);
        assertThat(a.measuredShare()).isCloseTo(16 / 224.0, within(1e-9));
        assertThat(a.ceilingShare()).isCloseTo(144 / 224.0, within(1e-9));
        // 16 tokens served needs a cache of 3 keys: three quarters of the GPU hold paused prompts.
        assertThat(a.calibrated()).isTrue();
        assertThat(a.gpuEffectiveShare()).isCloseTo(0.75, within(1e-6));
        assertThat(a.predictions()).extracting(TierAdvice.Size::size).containsExactly("0x", "1x", "2x", "5x");
        // 0x: 3 keys → 16; 1x: 4 keys → 48; 2x: 8 keys → 144; 5x: 20 keys → 144.
        assertThat(a.predictions()).extracting(TierAdvice.Size::predictedShare)
                .containsExactly(16 / 224.0, 48 / 224.0, 144 / 224.0, 144 / 224.0);
        // 1.5x = 6 keys serves 128 of the 144 reachable: more than a point short; 2x is the smallest within one.
        assertThat(a.recommendation().multipleOfGpuKv()).isEqualTo(2);
        assertThat(a.recommendation().tokensPerReplica()).isEqualTo(128);
        assertThat(a.recommendation().gibPerReplica()).as("no engine has told its KV bytes per token").isNull();
        assertThat(a.message()).startsWith("a host tier of 2× the GPU KV cache per replica (128 tokens;")
                .contains("would serve ~64 % of prompt tokens from cache instead of 7 %");
    }

    @Test
    void withATierAndLearnedBytesPerTokenSizesAreInGib() {
        StepTrace trace = new StepTrace(1, Duration.ofHours(1), 1_000);
        TierAdvisor advisor = new TierAdvisor(trace, List::of, 0, 1);
        // A tier of 128 tokens at 1 MiB per token (learned: 64 MiB loaded for 64 tokens): the GPU cannot be fitted.
        double mib = 1024 * 1024;
        HostTierMetrics tier = new HostTierMetrics(0.125, 100, 64, 64 * mib, 1);
        TierAdvice a = advisor.advise(HISTORY, Map.of("r0", new TierAdvisor.Capacity(64, 128, tier)));
        assertThat(a.calibrated()).isFalse();
        assertThat(a.bytesPerToken()).isEqualTo(1024 * 1024);
        assertThat(a.predictions()).extracting(TierAdvice.Size::size).containsExactly("0x", "1x", "2x", "5x", "current");
        TierAdvice.Size current = a.predictions().get(4);
        assertThat(current.predictedShare()).isCloseTo(144 / 224.0, within(1e-9));
        assertThat(current.multipleOfGpuKv()).isEqualTo(2);
        assertThat(a.recommendation().gibPerReplica()).isEqualTo(0.1); // 128 tokens × 1 MiB = 0.125 GiB, to a tenth
        assertThat(a.message()).startsWith("a 0.1 GiB tier per replica (2× its GPU KV cache)");
    }

    @Test
    void aReSentReplyIsServedFromTheGpuOnly() {
        // Step 2 continues step 1 on the same replica: key 9 is step 1's reply (the engine cached it as it generated it),
        // key 3 new text. Distances: key 1 → 0, key 2 → 1; the reply as recent as the prompt before it (1).
        List<TracedStep> h = List.of(step(0, 0, 1, 2),
                new TracedStep(1, "r0", 64, 0, 4, new long[]{1, 2, 9, 3}, 2, 1));
        ReuseProfile p = ReuseProfile.replay(h, 1, 1, 10);
        assertThat(p.servedTokens(2, 2)).isEqualTo(48);
        assertThat(p.servedTokens(2, 1)).as("the GPU lost the reply").isEqualTo(32);
        assertThat(p.servedTokens(5, 0)).as("a tier holds the prompt, never the reply").isEqualTo(32);
        assertThat(p.ceilingTokens(0)).isEqualTo(32);
        assertThat(p.ceilingTokens(2)).isEqualTo(48);
    }

    @Test
    void theKeysAfterAStepsPromptAreItsReplyOnlyOnTheSameReplica() {
        StepTrace trace = new StepTrace(4, Duration.ofHours(1), 1_000);
        long[] first = {1, 2, 3, 4, 5, 6, 7, 8};
        long[] next = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        // 8 blocks of 16 tokens: 2 keys of 64 tokens; 130 output tokens re-sent cover 2 whole keys.
        trace.traced("s", "r0", 0, 128, 0, 130, first);
        TracedStep continued = trace.traced("s", "r0", 1, 256, 128, 10, next);
        assertThat(continued.keys()).containsExactly(4L, 8L, 12L, 16L);
        assertThat(continued.replyFrom()).isEqualTo(2);
        assertThat(continued.replyKeys()).isEqualTo(2);
        // Elsewhere the reply is not cached; nor when the prompt does not continue the last one.
        trace.traced("t", "r0", 0, 128, 0, 130, first);
        assertThat(trace.traced("t", "r1", 1, 256, 0, 10, next).replyKeys()).isZero();
        trace.traced("u", "r0", 0, 128, 0, 130, first);
        assertThat(trace.traced("u", "r0", 1, 256, 0, 10, new long[]{1, 2, 3, 4, 5, 6, 7, 99, 9, 10, 11, 12}).replyKeys()).isZero();
    }

    @Test
    void keysAreTheLastHashOfEachWholeGroupOfBlocks() {
        assertThat(StepTrace.keys(new long[]{10, 20, 30, 40, 50, 60, 70}, 3)).containsExactly(30L, 60L);
    }
}
