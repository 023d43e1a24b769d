package io.lmwarden.router.placement;

import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.policy.AffinityPolicy;
import io.lmwarden.router.placement.policy.CostPolicy;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.prefix.TtftEstimator;
import io.lmwarden.router.placement.pins.AffinityTable;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.pool.ServedModels;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.session.CanonicalPrompt;
import io.lmwarden.router.session.PromptShape;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.session.SessionKeySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * AffinityPolicy, CostPolicy and Placer decided on hand-built snapshots, one row per situation:
 * new sessions, homes under and over the spill cap, cold homes, unavailable homes, client pins,
 * fallbacks and models nobody serves.
 */
class PlacementTablesTest {

    private static final String SESSION = "s-1";
    private static final String MODEL = "m";
    private static final double MS_PER_TOKEN = 0.2;
    /** ~10,000 tokens: a prompt whose recompute is worth seconds at 0.2 ms per token. */
    private static final PromptShape PROMPT = new CanonicalPrompt().segment("system", "system").append("p".repeat(40_000)).shape();
    /** What a replica holding PROMPT holds: its 625 whole blocks of 16 tokens. */
    private static final int HELD = 10_000;

    /** A replica: id, router in-flight, engine waiting, engine running, uncached prefill pending there. */
    private static ReplicaView replica(String id, int inFlight, double waiting, double running, long pendingPrefill) {
        return building(id, inFlight, waiting, running, pendingPrefill, MODEL).build();
    }

    /** The same replica, its metrics labelled with {@code metricsModel}, to be refined. */
    private static ReplicaView.Builder building(String id, int inFlight, double waiting, double running, long pendingPrefill,
                                                String metricsModel) {
        return ReplicaView.builder(id).inFlight(inFlight).pending(pendingPrefill > 0 ? 1 : 0, pendingPrefill)
                .metrics(ScrapedMetrics.builder().running(running).waiting(waiting).kvBlocks(2400, 16).models(metricsModel).build());
    }

    private static ReplicaView idle(String id) {
        return replica(id, 0, 0, 0, 0);
    }

    private static final String ALIAS = "claude-opus-4-8";

    /** An idle replica whose /v1/models was read: these names, all of one model (the first labels its metrics). */
    private static ReplicaView serving(String id, int inFlight, String... names) {
        Map<String, String> modelOf = new LinkedHashMap<>();
        for (String n : names) {
            modelOf.put(n, names[0]);
        }
        return building(id, inFlight, 0, inFlight, 0, names[0]).servedModels(new ServedModels(true, modelOf)).build();
    }

    private static RequestFacts facts(String model, Optional<String> pinnedReplica, Optional<Integer> rank) {
        return new RequestFacts(ApiDialect.ANTHROPIC_MESSAGES, model, true, new SessionKey(SESSION, SessionKeySource.CLAUDE_CODE_HEADER),
                PROMPT, 256, pinnedReplica, rank);
    }

    private static RequestFacts facts() {
        return facts(MODEL, Optional.empty(), Optional.empty());
    }

    /** One row: the pool, where the session lives (null: nowhere), which replicas hold its prompt, and what must happen. */
    record Row(String situation, List<ReplicaView> pool, String home, Set<String> warm, Decision decision, String replica,
               String reasonContains) {
        @Override
        public String toString() {
            return situation;
        }
    }

    static Stream<Row> affinityRows() {
        return Stream.of(
                new Row("new session: the least loaded by engine queue", List.of(replica("a", 1, 1, 1, 0), idle("b")), null, Set.of(),
                        Decision.NEW, "b", "new session"),
                new Row("new session: ties go to the first in id order", List.of(idle("a"), idle("b")), null, Set.of(),
                        Decision.NEW, "a", "least loaded"),
                new Row("home under the spill cap: stays", List.of(replica("a", 7, 2, 5, 0), idle("b")), "a", Set.of(),
                        Decision.STICKY, "a", "spill threshold 8"),
                new Row("home at the spill cap, another less busy: spills there", List.of(replica("a", 8, 2, 6, 0), replica("b", 3, 0, 3, 0)),
                        "a", Set.of(), Decision.SPILL, "b", "has 8 in flight"),
                new Row("home at the cap but nobody is less busy: stays", List.of(replica("a", 8, 2, 6, 0), replica("b", 9, 3, 6, 0)),
                        "a", Set.of(), Decision.STICKY, "a", "home replica"),
                new Row("home unavailable: re-placed as new", List.of(idle("a"), idle("b")), "gone", Set.of(),
                        Decision.NEW, "a", "home gone unavailable"));
    }

    static Stream<Row> costRows() {
        return Stream.of(
                new Row("new session: where its prefix is warm", List.of(idle("a"), idle("b")), null, Set.of("b"),
                        Decision.NEW, "b", "lowest expected TTFT"),
                new Row("new session, nothing warm: the least loaded", List.of(replica("a", 1, 0, 1, 0), idle("b")), null, Set.of(),
                        Decision.NEW, "b", "new session"),
                new Row("warm home, a short queue elsewhere: stays", List.of(replica("a", 1, 0, 1, 2_000), idle("b")), "a", Set.of("a"),
                        Decision.STICKY, "a", "would cost"),
                new Row("warm home behind a queue far longer than the recompute: moves", List.of(replica("a", 4, 0, 4, 200_000), idle("b")),
                        "a", Set.of("a"), Decision.SPILL, "b", "moved: home a expected"),
                new Row("cold home, a strictly shorter engine queue elsewhere: moves", List.of(replica("a", 2, 1, 2, 0), idle("b")),
                        "a", Set.of(), Decision.SPILL, "b", "holds 0 of"),
                new Row("cold home with the shortest queue: stays", List.of(idle("a"), idle("b")), "a", Set.of(),
                        Decision.STICKY, "a", "shortest queue"),
                new Row("home at the spill cap: spills whatever it holds", List.of(replica("a", 8, 0, 8, 0), idle("b")), "a", Set.of("a"),
                        Decision.SPILL, "b", "spill threshold 8"),
                new Row("home unavailable: re-placed as new", List.of(idle("a"), idle("b")), "gone", Set.of("b"),
                        Decision.NEW, "b", "home gone unavailable"));
    }

    private static Placement decide(PlacementPolicy policy, AffinityTable table, Row row) {
        if (row.home() != null) {
            table.pin(MODEL, SESSION, row.home(), 0);
        }
        return policy.place(new PlacementRequest(facts(), row.pool(), new PoolSnapshot(row.pool(), 0), 1));
    }

    private static void assertRow(Row row, Placement p, AffinityTable table) {
        assertThat(p.decision()).as("decision; reason: %s", p.reason()).isEqualTo(row.decision());
        assertThat(p.replica().id()).as("replica; reason: %s", p.reason()).isEqualTo(row.replica());
        assertThat(p.reason()).contains(row.reasonContains());
        // Whatever the policy decided, the session now lives where this step went.
        assertThat(table.peek(MODEL, SESSION)).contains(row.replica());
        assertThat(p.movedFrom()).isEqualTo(row.decision() == Decision.SPILL ? row.home() : null);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("affinityRows")
    void affinity(Row row) {
        AffinityTable table = new AffinityTable(100, Duration.ofMinutes(30));
        AffinityPolicy policy = new AffinityPolicy(new SessionHomes(table), SpillThreshold.AUTO, 32);
        assertThat(policy.pinsSessions()).isTrue();
        assertThat(policy.spillThreshold()).hasValue(8);
        assertRow(row, decide(policy, table, row), table);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("costRows")
    void cost(Row row) {
        AffinityTable table = new AffinityTable(100, Duration.ofMinutes(30));
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        row.pool().stream().filter(r -> row.warm().contains(r.id())).forEach(r -> indexes.of(r).insert(PROMPT));
        CostPolicy policy = new CostPolicy(new SessionHomes(table), SpillThreshold.AUTO, 32, new TtftEstimator(indexes, new PrefillRates(MS_PER_TOKEN), 32, 6400), 1);
        assertThat(policy.pinsSessions()).isTrue();
        Placement p = decide(policy, table, row);
        assertRow(row, p, table);
        assertThat(p.expectedCachedTokens()).as("what the chosen replica holds").isEqualTo(row.warm().contains(row.replica()) ? HELD : 0);
    }

    /** Placer rows: what reaches the policy, and what never does. */
    record PlacerRow(String situation, List<ReplicaView> pool, RequestFacts facts, Set<String> tried, Decision decision, String replica,
                     int pinnedAfter, int expectedCached, int failStatus) {
        @Override
        public String toString() {
            return situation;
        }
    }

    static Stream<PlacerRow> placerRows() {
        ReplicaView notReady = ReplicaView.builder("c").ready(false).build();
        List<ReplicaView> three = List.of(idle("a"), idle("b"), notReady);
        return Stream.of(
                new PlacerRow("no pin: the policy decides and pins", three, facts(), Set.of(), Decision.NEW, "a", 1, 0, 0),
                new PlacerRow("X-LMW-Replica: that replica, nothing pinned", three, facts(MODEL, Optional.of("b"), Optional.empty()),
                        Set.of(), Decision.CLIENT_PINNED, "b", 0, HELD, 0),
                new PlacerRow("X-data-parallel-rank: the n-th in id order", three, facts(MODEL, Optional.empty(), Optional.of(1)),
                        Set.of(), Decision.CLIENT_PINNED, "b", 0, HELD, 0),
                new PlacerRow("a pin to a replica that does not exist is the client's error", three,
                        facts(MODEL, Optional.of("nope"), Optional.empty()), Set.of(), null, null, 0, 0, 400),
                new PlacerRow("a rank out of range is the client's error", three, facts(MODEL, Optional.empty(), Optional.of(3)),
                        Set.of(), null, null, 0, 0, 400),
                new PlacerRow("a pin to a replica that is not ready: 503", three, facts(MODEL, Optional.of("c"), Optional.empty()),
                        Set.of(), null, null, 0, 0, 503),
                new PlacerRow("a retry: marked FALLBACK, never the replica that failed", three, facts(), Set.of("a"),
                        Decision.FALLBACK, "b", 1, HELD, 0),
                new PlacerRow("a model no list names: the least loaded answers, nothing pinned or expected",
                        List.of(serving("a", 1, MODEL, ALIAS), serving("b", 0, MODEL, ALIAS)),
                        facts("no-such-model", Optional.empty(), Optional.empty()), Set.of(), Decision.NEW, "b", 0, 0, 0),
                new PlacerRow("an alias only /v1/models lists (the metrics carry the first name): the policy decides and pins",
                        List.of(serving("a", 0, MODEL, ALIAS), serving("b", 0, MODEL, ALIAS)),
                        facts(ALIAS, Optional.empty(), Optional.empty()), Set.of(), Decision.NEW, "a", 1, 0, 0),
                new PlacerRow("lists not read yet: every replica may serve any name, the policy decides and pins", List.of(idle("a"), idle("b")),
                        facts(ALIAS, Optional.empty(), Optional.empty()), Set.of(), Decision.NEW, "a", 1, 0, 0),
                new PlacerRow("one list names it, another is not read yet: both may take it, the less busy does",
                        List.of(idle("a"), serving("b", 2, MODEL, ALIAS)),
                        facts(ALIAS, Optional.empty(), Optional.empty()), Set.of(), Decision.NEW, "a", 1, 0, 0),
                new PlacerRow("one list lacks it, another is not read yet: the one that may serve it", List.of(serving("a", 0, MODEL), idle("b")),
                        facts(ALIAS, Optional.empty(), Optional.empty()), Set.of(), Decision.NEW, "b", 1, HELD, 0),
                new PlacerRow("nothing ready: 503", List.of(notReady), facts(), Set.of(), null, null, 0, 0, 503),
                new PlacerRow("the only ready replicas already failed: 503", three, facts(), Set.of("a", "b"), null, null, 0, 0, 503));
    }

    /**
     * A router reads the replicas' lists one after the other (at start, after restarts): a session whose home's list is
     * not read yet while another's is must stay home, not move to the replica that is known to serve its name.
     */
    @Test
    void aHomeWhoseListIsNotReadYetKeepsItsSession() throws Exception {
        AffinityTable table = new AffinityTable(100, Duration.ofMinutes(30));
        Placer placer = new Placer(() -> new AffinityPolicy(new SessionHomes(table), SpillThreshold.AUTO, 32), new PrefixIndexes(38_400));
        table.pin(ALIAS, SESSION, "b", 0);
        List<ReplicaView> pool = List.of(serving("a", 0, MODEL, ALIAS), replica("b", 1, 0, 1, 0));
        Placement p = placer.place(facts(ALIAS, Optional.empty(), Optional.empty()), new PoolSnapshot(pool, 0), Set.of(), 1);
        assertThat(p.decision()).as("reason: %s", p.reason()).isEqualTo(Decision.STICKY);
        assertThat(p.replica().id()).isEqualTo("b");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("placerRows")
    void placer(PlacerRow row) throws Exception {
        AffinityTable table = new AffinityTable(100, Duration.ofMinutes(30));
        PrefixIndexes indexes = new PrefixIndexes(38_400);
        indexes.of(idle("b")).insert(PROMPT);
        Placer placer = new Placer(() -> new AffinityPolicy(new SessionHomes(table), SpillThreshold.AUTO, 32), indexes);
        PoolSnapshot snapshot = new PoolSnapshot(row.pool(), 0);
        if (row.failStatus() != 0) {
            assertThatThrownBy(() -> placer.place(row.facts(), snapshot, row.tried(), 1))
                    .isInstanceOfSatisfying(NoReplicaAvailableException.class, e -> assertThat(e.status()).isEqualTo(row.failStatus()));
            assertThat(table.size()).isZero();
            return;
        }
        Placement p = placer.place(row.facts(), snapshot, row.tried(), 1);
        assertThat(p.decision()).as("reason: %s", p.reason()).isEqualTo(row.decision());
        assertThat(p.replica().id()).isEqualTo(row.replica());
        assertThat(table.size()).as("sessions pinned").isEqualTo(row.pinnedAfter());
        // The placer tells what the chosen replica holds, whichever policy chose it.
        assertThat(p.expectedCachedTokens()).isEqualTo(row.expectedCached());
    }
}
