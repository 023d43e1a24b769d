package io.lmwarden.router.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator drains a replica through the admin API while 12 sessions stream: the streams in flight there finish
 * whole, the replica is reported draining and then drained, its residents leave the KV ledger at once, each of its
 * sessions moves at its next step as {@code DRAIN} (header, session log, metric) and stays where it went, no new
 * session lands there, and undraining takes it back.
 */
class ReplicaDrainTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SESSIONS = 12;
    private static final String DRAINED = "sim-1";

    @Test
    void aDrainedReplicaFinishesItsStreamsAndItsSessionsMoveAsDrain() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(3, SimProfile.defaultProfile(), 2),
                c -> c.with(PlacementSettings.POLICY, "affinity"))) {
            Http http = new Http();
            String system = AgentSession.sharedSystem(800);
            List<AgentSession> sessions = new ArrayList<>();
            Map<String, String> home = new HashMap<>();
            for (int i = 0; i < SESSIONS; i++) {
                AgentSession s = new AgentSession("drain-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 600, 300 + i);
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                s.append(AgentSession.replyText(r.body()), 200);
                home.put(s.id(), r.replica());
                sessions.add(s);
            }
            List<AgentSession> onDrained = sessions.stream().filter(s -> home.get(s.id()).equals(DRAINED)).toList();
            assertThat(onDrained).as("sessions homed on %s", DRAINED).isNotEmpty();

            // Step 2 of every session streams, concurrently; the drain comes while they run.
            List<CompletableFuture<Http.Reply>> streams = new ArrayList<>();
            for (AgentSession s : sessions) {
                String body = s.nextBody(120, true);
                streams.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, s.headers()), pool));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            // Every step 2 bound for it must be there before the drain: one that reached the router after it would
            // rightly move (a loaded machine sends some late).
            while (router.sims().running(1) < onDrained.size() && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(5);
            }
            assertThat(router.sims().running(1)).as("streams running on %s when it is drained", DRAINED).isEqualTo(onDrained.size());

            Http.Reply drain = http.post(router.adminUrl() + "/api/replicas/" + DRAINED + "/drain", "", Map.of());
            assertThat(drain.status()).isEqualTo(200);
            assertThat(JSON.readTree(drain.body()).get("drain").asText()).isEqualTo("draining");
            JsonNode during = replica(http, router, DRAINED);
            assertThat(during.get("drain").asText()).isEqualTo("draining");
            assertThat(during.get("ready").asBoolean()).isFalse();
            assertThat(during.get("residentSessions").asInt()).as("its residents left the KV ledger at once").isZero();
            String metricsDuring = http.get(router.url() + "/metrics").body();
            assertThat(gauge(metricsDuring, "lmw_replica_ready", DRAINED)).as("ready gauge while draining").isEqualTo(0);
            assertThat(gauge(metricsDuring, "lmw_replica_draining", DRAINED)).as("draining gauge while draining").isEqualTo(1);
            assertThat(gauge(metricsDuring, "lmw_replica_ready", "sim-0")).isEqualTo(1);
            assertThat(gauge(metricsDuring, "lmw_replica_draining", "sim-0")).isEqualTo(0);

            for (int i = 0; i < SESSIONS; i++) {
                Http.Reply r = streams.get(i).get(60, TimeUnit.SECONDS);
                AgentSession s = sessions.get(i);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).as("stream of %s finished whole", s.id()).contains("event: message_stop");
                assertThat(r.replica()).as("step 2 of %s stayed where it began", s.id()).isEqualTo(home.get(s.id()));
                s.append("streamed reply", 200);
            }
            awaitDrain(http, router, DRAINED, "drained");
            assertThat(gauge(http.get(router.url() + "/metrics").body(), "lmw_replica_draining", DRAINED)).as("drained").isEqualTo(2);

            // Step 3, concurrently: every session of the drained replica moves, announced; the others stay home.
            List<CompletableFuture<Http.Reply>> step3 = new ArrayList<>();
            for (AgentSession s : sessions) {
                String body = s.nextBody(4, false);
                step3.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, s.headers()), pool));
            }
            Map<String, String> movedTo = new HashMap<>();
            for (int i = 0; i < SESSIONS; i++) {
                Http.Reply r = step3.get(i).get(60, TimeUnit.SECONDS);
                AgentSession s = sessions.get(i);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.replica()).isNotEqualTo(DRAINED);
                if (home.get(s.id()).equals(DRAINED)) {
                    assertThat(r.decision()).as("step 3 of %s", s.id()).isEqualTo("DRAIN");
                    movedTo.put(s.id(), r.replica());
                } else {
                    assertThat(r.decision()).as("step 3 of %s", s.id()).isEqualTo("STICKY");
                    assertThat(r.replica()).isEqualTo(home.get(s.id()));
                }
                s.append(AgentSession.replyText(r.body()), 200);
            }
            // Step 4: the moved sessions live where they went.
            for (AgentSession s : onDrained) {
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.decision()).isEqualTo("STICKY");
                assertThat(r.replica()).isEqualTo(movedTo.get(s.id()));
            }
            // The decision log and the metric say so too.
            String log = http.get(router.adminUrl() + "/api/sessions/" + onDrained.get(0).id()).body();
            assertThat(log).contains("\"decision\":\"DRAIN\"").contains("is draining");
            assertThat(drainDecisions(http.get(router.url() + "/metrics").body())).isEqualTo(onDrained.size());

            // New sessions never land on it.
            for (int i = 0; i < 6; i++) {
                AgentSession s = new AgentSession("late-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 400, 400 + i);
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.replica()).isNotEqualTo(DRAINED);
                assertThat(r.decision()).isEqualTo("NEW");
            }

            // Undrained, the emptiest replica takes new sessions again.
            Http.Reply undrain = http.delete(router.adminUrl() + "/api/replicas/" + DRAINED + "/drain");
            assertThat(undrain.status()).isEqualTo(200);
            assertThat(JSON.readTree(undrain.body()).get("drain").asText()).isEqualTo("none");
            assertThat(replica(http, router, DRAINED).get("ready").asBoolean()).isTrue();
            String metricsAfter = http.get(router.url() + "/metrics").body();
            assertThat(gauge(metricsAfter, "lmw_replica_ready", DRAINED)).isEqualTo(1);
            assertThat(gauge(metricsAfter, "lmw_replica_draining", DRAINED)).isEqualTo(0);
            AgentSession back = new AgentSession("back", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 400, 999);
            assertThat(http.post(router.url() + "/v1/messages", back.nextBody(4, false), back.headers()).replica()).isEqualTo(DRAINED);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void drainingAnUnknownReplicaIsA404ThatNamesTheKnownOnes() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            for (String method : List.of("POST", "DELETE")) {
                Http.Reply r = http.send(method, router.adminUrl() + "/api/replicas/nope/drain", null, Map.of());
                assertThat(r.status()).isEqualTo(404);
                assertThat(r.header("content-type")).startsWith("application/json");
                assertThat(JSON.readTree(r.body()).path("error").path("message").asText()).contains("no replica 'nope'", "sim-0, sim-1");
            }
            // The server keeps serving.
            assertThat(replica(http, router, "sim-0").get("drain").asText()).isEqualTo("none");
        }
    }

    @Test
    void theDrainPathAnswersOtherMethodsWith405AndItsOwnAllow() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            for (String method : List.of("GET", "PUT")) {
                Http.Reply r = http.send(method, router.adminUrl() + "/api/replicas/sim-0/drain", method.equals("PUT") ? "{}" : null, Map.of());
                assertThat(r.status()).as(method).isEqualTo(405);
                assertThat(r.header("allow")).as(method).isEqualTo("POST, DELETE");
                assertThat(JSON.readTree(r.body()).path("error").path("message").asText()).contains("use POST, DELETE");
            }
            // Other admin paths keep theirs.
            assertThat(http.send("DELETE", router.adminUrl() + "/api/replicas", null, Map.of()).header("allow")).isEqualTo("GET, HEAD");
        }
    }

    /** A data-parallel rank is a replica whose id has a '/': draining it works raw and percent-encoded (as the UI sends it). */
    @Test
    void aDataParallelRankDrainsByItsIdRawOrEncoded() throws Exception {
        SimPool sims = SimPool.start(List.of(2), SimProfile.defaultProfile(), 20, io.lmwarden.sim.dp.BalancerEra.CURRENT);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.withReplicas(List.of("dp=" + sims.url(0))))) {
            Http http = new Http();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!JSON.readTree(http.get(router.adminUrl() + "/api/replicas").body()).toString().contains("dp/rank-1")
                    && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(20);
            }
            Http.Reply raw = http.post(router.adminUrl() + "/api/replicas/dp/rank-1/drain", "", Map.of());
            assertThat(raw.status()).as(raw.body()).isEqualTo(200);
            assertThat(JSON.readTree(raw.body()).get("id").asText()).isEqualTo("dp/rank-1");
            assertThat(replica(http, router, "dp/rank-1").get("drain").asText()).isIn("draining", "drained");
            assertThat(replica(http, router, "dp/rank-0").get("drain").asText()).isEqualTo("none");

            Http.Reply encoded = http.delete(router.adminUrl() + "/api/replicas/dp%2Frank-1/drain");
            assertThat(encoded.status()).as(encoded.body()).isEqualTo(200);
            assertThat(replica(http, router, "dp/rank-1").get("drain").asText()).isEqualTo("none");

        }
    }

    /** The value of a per-replica gauge in the Prometheus text, or -1 when absent. */
    private static long gauge(String metrics, String name, String replica) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*replica=\"" + Pattern.quote(replica) + "\"[^}]*\\} ([0-9.]+)$").matcher(metrics);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    private static long drainDecisions(String metrics) {
        Matcher m = Pattern.compile("(?m)^lmw_requests_total\\{[^}]*decision=\"DRAIN\"[^}]*\\} ([0-9.]+)$").matcher(metrics);
        long n = 0;
        while (m.find()) {
            n += (long) Double.parseDouble(m.group(1));
        }
        return n;
    }

    private static void awaitDrain(Http http, RouterUnderTest router, String id, String state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        JsonNode r = replica(http, router, id);
        while (!r.get("drain").asText().equals(state) && System.nanoTime() < deadline) {
            RouterUnderTest.sleep(20);
            r = replica(http, router, id);
        }
        assertThat(r.get("drain").asText()).as("%s drain state; row %s", id, r).isEqualTo(state);
    }

    static JsonNode replica(Http http, RouterUnderTest router, String id) throws Exception {
        for (JsonNode r : JSON.readTree(http.get(router.adminUrl() + "/api/replicas").body()).get("replicas")) {
            if (r.get("id").asText().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no replica " + id);
    }
}
