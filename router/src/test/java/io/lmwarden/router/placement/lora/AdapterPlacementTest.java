package io.lmwarden.router.placement.lora;

import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.placement.pins.NewSessionFilter;
import io.lmwarden.router.pool.LoraMetrics;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.session.CanonicalPrompt;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.session.SessionKeySource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a new LoRA adapter session may go ({@link AdapterPlacement}), decided on hand-built replicas and the sessions
 * {@link AdapterActivity} saw on them: with its adapter, past the share, a free slot, no slot, and the adapter nowhere.
 */
class AdapterPlacementTest {

    private static final Set<String> ADAPTERS = Set.of("alpha", "beta", "gamma", "delta");
    private static final long WINDOW = Duration.ofMinutes(3).toNanos();
    private static final long NOW = Duration.ofHours(1).toNanos();

    private final AdapterActivity activity = new AdapterActivity(ADAPTERS::contains, WINDOW);

    private static ReplicaView replica(String id, int maxLoras) {
        ScrapedMetrics m = ScrapedMetrics.builder().kvBlocks(2400, 16)
                .lora(maxLoras == 0 ? LoraMetrics.NONE : new LoraMetrics(maxLoras, List.of())).build();
        return ReplicaView.builder(id).metrics(m).build();
    }

    private static PlacementRequest request(String model, List<ReplicaView> pool) {
        RequestFacts f = new RequestFacts(ApiDialect.OPENAI_CHAT, model, true, new SessionKey("new-one", SessionKeySource.SESSION_ID_HEADER),
                new CanonicalPrompt().append("hello").shape(), 64, Optional.empty(), Optional.empty());
        return new PlacementRequest(f, pool, new PoolSnapshot(pool, NOW), NOW);
    }

    private void sessions(String replica, String model, int count) {
        for (int i = 0; i < count; i++) {
            activity.seen(replica, model, replica + "-" + model + "-" + i, NOW - Duration.ofSeconds(10).toNanos());
        }
    }

    private static List<String> ids(NewSessionFilter.Choice c) {
        return c.candidates().stream().map(ReplicaView::id).toList();
    }

    private AdapterPlacement placement(boolean enabled) {
        return new AdapterPlacement(activity, ADAPTERS::contains, new LoraSlots(1), enabled);
    }

    private static final List<ReplicaView> FOUR = List.of(replica("r0", 2), replica("r1", 2), replica("r2", 2), replica("r3", 2));

    @Test
    void aSessionGoesWhereItsAdapterRunsWhileThatReplicaIsWithinItsShare() {
        sessions("r0", "alpha", 2);
        sessions("r1", "beta", 2);
        sessions("r2", "base", 2);
        NewSessionFilter.Choice c = placement(true).choose(request("alpha", FOUR));
        assertThat(ids(c)).containsExactly("r0");
        assertThat(c.why()).contains("adapter alpha runs on r0");
    }

    @Test
    void aPopularAdapterPastItsShareEverywhereItRunsOpensOnAReplicaWithAFreeSlot() {
        // Mean 2.5 sessions: r0's 7 are past mean + 2. r1 runs beta and gamma: no slot left at max_loras 2.
        sessions("r0", "alpha", 7);
        sessions("r1", "beta", 1);
        sessions("r1", "gamma", 1);
        sessions("r2", "delta", 1);
        NewSessionFilter.Choice c = placement(true).choose(request("alpha", FOUR));
        assertThat(ids(c)).containsExactly("r2", "r3");
        assertThat(c.why()).contains("past its share").contains("free adapter slot");
    }

    @Test
    void withNoSlotFreeAnywhereItStaysWhereItsAdapterRunsEvenPastItsShare() {
        sessions("r0", "alpha", 7);
        for (String r : List.of("r1", "r2", "r3")) {
            sessions(r, "beta", 1);
            sessions(r, "gamma", 1);
        }
        NewSessionFilter.Choice c = placement(true).choose(request("alpha", FOUR));
        assertThat(ids(c)).containsExactly("r0");
        assertThat(c.why()).contains("no adapter slot free elsewhere");
    }

    @Test
    void anAdapterThatRunsNowhereAndFindsNoSlotGoesWhereFewestAdaptersRun() {
        sessions("r0", "alpha", 1);
        sessions("r0", "beta", 1);
        sessions("r1", "alpha", 1);
        sessions("r1", "gamma", 1);
        sessions("r2", "beta", 1);
        sessions("r2", "gamma", 1);
        sessions("r3", "alpha", 1);
        sessions("r3", "beta", 1);
        sessions("r3", "gamma", 1);
        NewSessionFilter.Choice c = placement(true).choose(request("delta", FOUR));
        assertThat(ids(c)).containsExactly("r0", "r1", "r2");
        assertThat(c.why()).contains("fewest adapters (2)");
    }

    @Test
    void slotsComeFromTheEngineAndFromTheSettingUntilItPublishes() {
        List<ReplicaView> pool = List.of(replica("r0", 0), replica("r1", 2));
        sessions("r0", "beta", 1);
        sessions("r1", "beta", 1);
        // r0 has not published max_lora: the setting (1) says beta fills it; r1's engine says 2.
        NewSessionFilter.Choice c = placement(true).choose(request("alpha", pool));
        assertThat(ids(c)).containsExactly("r1");
        assertThat(new LoraSlots(1).source(pool.get(0))).isEqualTo("setting");
        assertThat(new LoraSlots(1).of(pool.get(1))).isEqualTo(2);
    }

    @Test
    void baseModelSessionsAndTheSwitchedOffPlacementKeepEveryCandidate() {
        sessions("r0", "alpha", 2);
        assertThat(ids(placement(true).choose(request("base", FOUR)))).hasSize(4);
        NewSessionFilter.Choice off = placement(false).choose(request("alpha", FOUR));
        assertThat(ids(off)).hasSize(4);
        assertThat(off.why()).isEmpty();
    }

    @Test
    void aSessionCountsOnlyOnTheReplicaOfItsLastStepAndOnlyWithinTheWindow() {
        activity.seen("r0", "alpha", "s1", NOW - WINDOW - 1);
        activity.seen("r1", "beta", "s2", NOW - 5);
        activity.seen("r2", "beta", "s2", NOW);
        assertThat(activity.on("r0", NOW).adapters()).isZero();
        assertThat(activity.on("r1", NOW).sessions()).isZero();
        assertThat(activity.on("r2", NOW).adapterSessions()).containsEntry("beta", 1);
        activity.seen("r2", "base", "s3", NOW);
        assertThat(activity.on("r2", NOW).sessions()).isEqualTo(2);
        assertThat(activity.on("r2", NOW).adapters()).isEqualTo(1);
    }
}
