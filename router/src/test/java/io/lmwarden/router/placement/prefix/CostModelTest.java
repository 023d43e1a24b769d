package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.placement.pins.AffinityTable;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.policy.CostPolicy;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.session.CanonicalPrompt;
import io.lmwarden.router.session.PromptShape;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.session.SessionKeySource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The cost model, the prefix index and the hysteresis of the cost policy, on hand-built pool snapshots. */
class CostModelTest {

    private static final double MS_PER_TOKEN = 0.2;

    private static PromptShape prompt(String text) {
        return new CanonicalPrompt().segment("system", "system").append(text).shape();
    }

    private static ScrapedMetrics engine(double running, double waiting) {
        return ScrapedMetrics.builder().running(running).waiting(waiting).kvCacheUsage(0.1).kvBlocks(2400, 16).models("m").build();
    }

    private static ReplicaView replica(String id, int inFlight, long pendingPrefill, int pendingRequests, double running, double waiting) {
        return new ReplicaView(id, "http://" + id, true, inFlight, 0, 0, pendingPrefill, pendingRequests, pendingRequests, engine(running, waiting), true);
    }

    private static RequestFacts facts(String session, PromptShape shape) {
        return new RequestFacts(ApiDialect.ANTHROPIC_MESSAGES, "m", true, new SessionKey(session, SessionKeySource.CLAUDE_CODE_HEADER),
                shape, 256, Optional.empty(), Optional.empty());
    }

    @Test
    void prefixIndexHoldsChainedBlocksAndEvictsLeastRecentlyUsedAtCapacity() {
        PrefixIndex index = new PrefixIndex(100);
        PromptShape a = prompt("a".repeat(64 * 60));
        PromptShape aLonger = prompt("a".repeat(64 * 60) + "b".repeat(64 * 20));
        PromptShape other = prompt("c".repeat(64 * 60));
        index.insert(a);
        assertThat(index.heldBlocks(aLonger)).isEqualTo(a.blocks());
        assertThat(index.heldBlocks(other)).isZero();
        // Equal text in a different place is a different chain: nothing of it is held.
        assertThat(index.heldBlocks(prompt("x" + "a".repeat(64 * 60)))).isZero();
        index.insert(other);
        assertThat(index.size()).isEqualTo(100);
        // The first prompt lost its tail, not its prefix (tail blocks are the least recently used, as in vLLM).
        assertThat(index.heldBlocks(a)).isEqualTo(a.blocks() - 20);
        assertThat(index.heldBlocks(other)).isEqualTo(other.blocks());
    }

    @Test
    void estimateIsQueueAheadPlusPrefillOfWhatIsNotHeld() {
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        TtftEstimator estimator = new TtftEstimator(indexes, new PrefillRates(MS_PER_TOKEN), 32, 6400);
        PromptShape shape = prompt("s".repeat(40_000));
        ReplicaView warm = replica("warm", 1, 5000, 1, 1, 0);
        ReplicaView cold = replica("cold", 0, 0, 0, 0, 0);
        indexes.of(warm).insert(prompt("s".repeat(30_000)));

        TtftEstimate w = estimator.estimate(warm, shape);
        TtftEstimate c = estimator.estimate(cold, shape);
        assertThat(w.heldTokens()).isEqualTo(30_000 / 64 * 16);
        assertThat(w.queueMs()).isEqualTo(5000 * MS_PER_TOKEN);
        assertThat(w.prefillMs()).isEqualTo((shape.estimatedTokens() - w.heldTokens()) * MS_PER_TOKEN);
        assertThat(c.queueMs()).isZero();
        assertThat(c.prefillMs()).isEqualTo(shape.estimatedTokens() * MS_PER_TOKEN);
        // WORKLOAD.md's example in shape: the warm replica wins while its queue is shorter than the prefill it saves.
        assertThat(w.totalMs()).isLessThan(c.totalMs());
        ReplicaView warmButBusy = replica("warm", 3, 30_000, 3, 1, 2);
        assertThat(estimator.estimate(warmButBusy, shape).totalMs()).isGreaterThan(c.totalMs());
    }

    @Test
    void whatOnlyTheHostTierHoldsCostsItsLoadTimeNotItsPrefill() {
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        double timeScale = 10;
        TtftEstimator estimator = new TtftEstimator(indexes, new PrefillRates(MS_PER_TOKEN), 32, 6400, timeScale);
        // A GPU cache of 100 blocks (1,600 tokens) and a 1 GiB host tier at the priors (147,456 B per token, 25 GB/s).
        ScrapedMetrics tiered = ScrapedMetrics.builder().kvBlocks(100, 16).hostTier(new HostTierMetrics(1, 0, 0, 0, 0)).build();
        ReplicaView home = ReplicaView.builder("home").metrics(tiered).build();
        ReplicaView plain = ReplicaView.builder("plain").metrics(ScrapedMetrics.builder().kvBlocks(100, 16).build()).build();
        PromptShape session = prompt("s".repeat(64 * 300));
        indexes.accepted(home, session);
        indexes.accepted(plain, session);
        // Another session pushes it out of both GPU caches; the host tier (7,281 tokens) keeps both.
        indexes.accepted(home, prompt("o".repeat(64 * 100)));
        indexes.accepted(plain, prompt("o".repeat(64 * 100)));

        TtftEstimate h = estimator.estimate(home, session);
        TtftEstimate p = estimator.estimate(plain, session);
        assertThat(indexes.hold(home, session).gpuTokens()).isZero();
        assertThat(h.loadedTokens()).isEqualTo(Math.min(session.blocks() * 16, session.estimatedTokens() - 1)).isPositive();
        assertThat(h.heldTokens()).isEqualTo(h.loadedTokens());
        assertThat(h.loadMs()).isCloseTo(h.loadedTokens() * 147_456 / 25e9 * 1000 / timeScale, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(h.prefillMs()).isEqualTo((session.estimatedTokens() - h.heldTokens()) * MS_PER_TOKEN);
        assertThat(p.heldTokens()).isZero();
        assertThat(p.loadMs()).isZero();
        // Credited below a GPU hit by its load time, far above a recompute: ~3 ms against ~960 ms here.
        assertThat(h.totalMs()).isPositive().isLessThan(p.totalMs() / 100);
        assertThat(indexes.heldTokens(home, session)).as("what the engine would report cached").isEqualTo(h.heldTokens());
    }

    @Test
    void engineWaitingThatIsNotTheRoutersAndAFullEngineAddQueueTime() {
        TtftEstimator estimator = new TtftEstimator(new PrefixIndexes(38_400), new PrefillRates(MS_PER_TOKEN), 4, 4000);
        PromptShape shape = prompt("q".repeat(4000));
        assertThat(estimator.estimate(replica("r", 0, 0, 0, 0, 2), shape).queueMs())
                .isEqualTo(2 * TtftEstimator.UNKNOWN_REQUEST_TOKENS * MS_PER_TOKEN);
        // Four running of four slots: wait for one to finish (decode time / slots).
        assertThat(estimator.estimate(replica("r", 4, 0, 0, 4, 0), shape).queueMs()).isEqualTo(1000);
    }

    @Test
    void equalReplicasNeverTradeASessionBackAndForth() {
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        AffinityTable table = new AffinityTable(1000, Duration.ofHours(1));
        CostPolicy policy = new CostPolicy(new SessionHomes(table), SpillThreshold.AUTO, 32, new TtftEstimator(indexes, new PrefillRates(MS_PER_TOKEN), 32, 6400), 1);
        PromptShape shape = prompt("t".repeat(8000));
        List<ReplicaView> pool = List.of(replica("a", 1, 100, 1, 1, 0), replica("b", 1, 100, 1, 1, 0));
        Placement first = policy.place(new PlacementRequest(facts("s", shape), pool, new PoolSnapshot(pool, 0), 0));
        assertThat(first.decision()).isEqualTo(Decision.NEW);
        String home = first.replica().id();
        for (int i = 1; i <= 20; i++) {
            // Small wobbles of the queues, both ways, never move it: hysteresis.
            long wobbleA = (i % 2 == 0) ? 400 : 0;
            long wobbleB = (i % 2 == 0) ? 0 : 400;
            List<ReplicaView> p = List.of(replica("a", 1, 100 + wobbleA, 1, 1, 0), replica("b", 1, 100 + wobbleB, 1, 1, 0));
            Placement next = policy.place(new PlacementRequest(facts("s", shape), p, new PoolSnapshot(p, 0), i));
            assertThat(next.decision()).isEqualTo(Decision.STICKY);
            assertThat(next.replica().id()).isEqualTo(home);
        }
    }

    @Test
    void movesWhenTheHomeQueueCostsMoreThanRecomputingAndNotBefore() {
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        AffinityTable table = new AffinityTable(1000, Duration.ofHours(1));
        CostPolicy policy = new CostPolicy(new SessionHomes(table), SpillThreshold.fixed(100), 32,
                new TtftEstimator(indexes, new PrefillRates(MS_PER_TOKEN), 32, 6400), 1);
        PromptShape shape = prompt("h".repeat(40_000));
        table.pin("m", "s", "home", 0);
        ReplicaView homeIdle = replica("home", 0, 0, 0, 0, 0);
        indexes.of(homeIdle).insert(shape);
        // Full prefill elsewhere: 10,000 tokens × 0.2 ms = 2 s. A home queue of 1 s is cheaper: stay.
        List<ReplicaView> modest = List.of(replica("home", 2, 5000, 2, 2, 0), replica("other", 0, 0, 0, 0, 0));
        assertThat(policy.place(new PlacementRequest(facts("s", shape), modest, new PoolSnapshot(modest, 0), 1)).decision())
                .isEqualTo(Decision.STICKY);
        // A home queue of 6 s is not: move, and the session is re-pinned.
        List<ReplicaView> long_ = List.of(replica("home", 6, 30_000, 6, 4, 2), replica("other", 0, 0, 0, 0, 0));
        Placement moved = policy.place(new PlacementRequest(facts("s", shape), long_, new PoolSnapshot(long_, 0), 2));
        assertThat(moved.decision()).isEqualTo(Decision.SPILL);
        assertThat(moved.replica().id()).isEqualTo("other");
        assertThat(table.peek("m", "s")).contains("other");
    }

    @Test
    void aNewRequestGoesWhereItsSharedPrefixIsWarmUnlessThatReplicaIsBusy() {
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        AffinityTable table = new AffinityTable(1000, Duration.ofHours(1));
        CostPolicy policy = new CostPolicy(new SessionHomes(table), SpillThreshold.AUTO, 32, new TtftEstimator(indexes, new PrefillRates(MS_PER_TOKEN), 32, 6400), 1);
        String system = "shared system prompt ".repeat(700);
        ReplicaView warm = replica("b-warm", 0, 0, 0, 0, 0);
        indexes.of(warm).insert(prompt(system + "first user"));
        PromptShape fresh = prompt(system + "another conversation entirely");
        List<ReplicaView> idle = List.of(replica("a-cold", 0, 0, 0, 0, 0), warm);
        Placement p = policy.place(new PlacementRequest(facts("fp-1", fresh), idle, new PoolSnapshot(idle, 0), 0));
        assertThat(p.replica().id()).isEqualTo("b-warm");
        assertThat(p.expectedCachedTokens()).isGreaterThan(3000);
        List<ReplicaView> warmBusy = List.of(replica("a-cold", 0, 0, 0, 0, 0), replica("b-warm", 5, 40_000, 5, 3, 2));
        Placement q = policy.place(new PlacementRequest(facts("fp-2", fresh), warmBusy, new PoolSnapshot(warmBusy, 0), 0));
        assertThat(q.replica().id()).isEqualTo("a-cold");
    }
}
