package io.lmwarden.router.placement.lora;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.ConcurrentSessions;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.lora.LoraModules;
import io.lmwarden.sim.lora.LoraOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36, placement by adapter, over real HTTP: four simulated replicas that each serve the adapters alpha, beta and
 * gamma with {@code --max-loras 1} (one adapter per batch; a request whose adapter finds no slot waits, as in vLLM).
 * Ten concurrent sessions — six on alpha, two on beta, two on gamma — are placed so that no replica works for two
 * adapters: every step finds its adapter's slot, the engines count no slot wait, and a popular adapter spreads while a
 * rare one stays on one replica. With {@code adapterPlacement} off, the same sessions mix adapters on a replica.
 */
class AdapterPlacementOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Generous: nothing here is about health checks, and on a starved machine a 1 s /health timeout takes a replica out
     * for a moment and releases its sessions, whose next step is then NEW.
     */
    private static final java.time.Duration HEALTH_TIMEOUT = java.time.Duration.ofSeconds(10);
    private static final List<String> ADAPTERS = List.of("alpha", "beta", "gamma");

    private static SimPool fourReplicasOneSlotEach() {
        List<String> modules = ADAPTERS.stream().map(a -> a + "=/adapters/" + a).toList();
        LoraOptions lora = LoraOptions.of(LoraModules.parse(modules), 1, 3, 16, false);
        return SimPool.startWithLora(SimProfile.defaultProfile(), 20, List.of(lora, lora, lora, lora));
    }

    /** alpha ×6, beta ×2, gamma ×2, interleaved: a, b, g, a, b, g, a, a, a, a. */
    private static List<AgentSession> sessions(String tag) {
        List<String> order = List.of("alpha", "beta", "gamma", "alpha", "beta", "gamma", "alpha", "alpha", "alpha", "alpha");
        List<AgentSession> out = new ArrayList<>();
        String system = AgentSession.sharedSystem(4000);
        for (int i = 0; i < order.size(); i++) {
            out.add(new AgentSession(order.get(i) + "-" + i + "-" + tag, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 2000, 90 + i)
                    .model(order.get(i)));
        }
        return out;
    }

    private static String adapterOf(String sessionId) {
        return sessionId.substring(0, sessionId.indexOf('-'));
    }

    @Test
    void concurrentSessionsOfThreeAdaptersNeverShareAReplicaAndNeverWaitForASlot() throws Exception {
        try (SimPool sims = fourReplicasOneSlotEach(); RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT))) {
            Http http = new Http();
            awaitAdapters(http, router);
            Map<String, List<Http.Reply>> replies = ConcurrentSessions.run(http, router.url(), sessions("on"), 3, (s, step) -> s.headers());

            Map<String, Set<String>> adaptersByReplica = new TreeMap<>();
            Map<String, Set<String>> replicasByAdapter = new TreeMap<>();
            replies.forEach((id, steps) -> {
                assertThat(steps).extracting(Http.Reply::status).as("statuses of %s", id).containsOnly(200);
                assertThat(steps).extracting(Http.Reply::decision).as("decisions of %s", id).containsExactly("NEW", "STICKY", "STICKY");
                String replica = steps.get(0).replica();
                adaptersByReplica.computeIfAbsent(replica, r -> new TreeSet<>()).add(adapterOf(id));
                replicasByAdapter.computeIfAbsent(adapterOf(id), a -> new TreeSet<>()).add(replica);
            });
            assertThat(adaptersByReplica.values()).as("adapters per replica: %s", adaptersByReplica).allMatch(s -> s.size() == 1);
            assertThat(replicasByAdapter.get("beta")).as("the rare adapter beta").hasSize(1);
            assertThat(replicasByAdapter.get("gamma")).as("the rare adapter gamma").hasSize(1);
            assertThat(slotWaits(sims)).as("steps that waited for an adapter slot").isZero();

            // /api/replicas shows, per replica, the adapters its sessions work for and the engine's max_loras.
            AtomicReference<JsonNode> rows = new AtomicReference<>();
            Await.until("every replica with sessions shows its adapter and the engine's max_loras", () -> {
                rows.set(replicaRows(http, router));
                for (JsonNode r : rows.get()) {
                    JsonNode lora = r.path("lora");
                    // An engine publishes max_lora after its first step: a replica no session went to says the setting's.
                    if (lora.path("adaptersInUse").asInt() > 0 && !"metrics".equals(lora.path("maxLorasFrom").asText())) {
                        return false;
                    }
                }
                return true;
            }, () -> String.valueOf(rows.get()));
            int sessionsShown = 0;
            for (JsonNode r : rows.get()) {
                JsonNode lora = r.path("lora");
                assertThat(lora.path("maxLoras").asInt()).isEqualTo(1);
                assertThat(lora.path("adaptersInUse").asInt()).as("adapters in use on %s", r.path("id")).isLessThanOrEqualTo(1);
                for (JsonNode a : lora.path("adapters")) {
                    assertThat(a.path("listed").asBoolean()).isTrue();
                    sessionsShown += a.path("sessions").asInt();
                }
            }
            assertThat(sessionsShown).isEqualTo(10);
        }
    }

    @Test
    void withAdapterPlacementOffTheSameSessionsMixAdaptersOnAReplica() throws Exception {
        try (SimPool sims = fourReplicasOneSlotEach();
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.ADAPTER_PLACEMENT, false)
                     .with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT))) {
            Http http = new Http();
            awaitAdapters(http, router);
            // One session after the other: placed by load alone, the interleaved adapters land side by side.
            Map<String, Set<String>> adaptersByReplica = new TreeMap<>();
            for (AgentSession s : sessions("off")) {
                Http.Reply r = http.post(router.url() + "/v1/messages?beta=true", s.nextBody(16, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                adaptersByReplica.computeIfAbsent(r.replica(), x -> new TreeSet<>()).add(adapterOf(s.id()));
            }
            assertThat(Collections.max(adaptersByReplica.values().stream().map(Set::size).toList()))
                    .as("adapters per replica: %s", adaptersByReplica).isGreaterThanOrEqualTo(2);
        }
    }

    private static long slotWaits(SimPool sims) {
        long waits = 0;
        for (int i = 0; i < sims.size(); i++) {
            waits += sims.engines(i).stream().mapToLong(e -> e.loraSlotWaits()).sum();
        }
        return waits;
    }

    private static JsonNode replicaRows(Http http, RouterUnderTest router) {
        try {
            return JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Polls until every replica lists the three adapters (the router reads /v1/models every 100 ms here). */
    private static void awaitAdapters(Http http, RouterUnderTest router) {
        AtomicReference<JsonNode> rows = new AtomicReference<>();
        Await.until("every replica lists alpha, beta and gamma", () -> {
            rows.set(replicaRows(http, router));
            if (rows.get().size() != 4) {
                return false;
            }
            for (JsonNode r : rows.get()) {
                Set<String> names = new TreeSet<>();
                r.path("servedModels").forEach(n -> names.add(n.asText()));
                if (!names.containsAll(ADAPTERS)) {
                    return false;
                }
            }
            return true;
        }, () -> String.valueOf(rows.get()));
    }
}
