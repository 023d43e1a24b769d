package io.lmwarden.router.placement.lora;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.lora.LoraModules;
import io.lmwarden.sim.lora.LoraOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36, runtime loading ({@code loadAdapters}), over real HTTP with three simulated replicas of one base model at
 * {@code --max-loras 1}: sim-0 lists the adapter alpha; sim-1 and sim-2 list none, sim-1 without runtime updating (its
 * load path is a 404, as in vLLM without {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING}), sim-2 with it. Alpha's sessions
 * fill sim-0 past its share; the router then asks sim-1 to load alpha, is refused, says so, asks sim-2, which loads it
 * and lists it; the next alpha session goes to sim-2, while the sessions already on sim-0 stay there. Off (the default),
 * nothing is loaded and every alpha session goes to sim-0.
 */
class AdapterLoadingOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Generous: nothing here is about health checks, and on a starved machine a 1 s /health timeout takes a replica out
     * for a moment and releases its sessions, whose next step is then NEW.
     */
    private static final java.time.Duration HEALTH_TIMEOUT = java.time.Duration.ofSeconds(10);

    private static SimPool pool() {
        LoraOptions lists = LoraOptions.of(LoraModules.parse(List.of("alpha=/adapters/alpha")), 1, 2, 16, true);
        LoraOptions refuses = LoraOptions.of(List.of(), 1, 2, 16, false);
        LoraOptions loads = LoraOptions.of(List.of(), 1, 2, 16, true);
        return SimPool.startWithLora(SimProfile.defaultProfile(), 20, List.of(lists, refuses, loads));
    }

    @Test
    void alphaIsLoadedWhereThereIsRoomAfterARefusalAndItsNextSessionGoesThere() throws Exception {
        try (SimPool sims = pool();
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.LOAD_ADAPTERS, true)
                     .with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT))) {
            Http http = new Http();
            awaitRow(http, router, "sim-0 lists alpha", rows -> served(rows, 0).contains("alpha"));
            List<AgentSession> onSim0 = new ArrayList<>();
            // Three sessions on sim-0 are within its share (mean 1 + 2); the fourth finds it past its share, nowhere
            // else listing alpha: a load is asked on the least loaded replica of the base model, sim-1, which refuses.
            for (int i = 0; i < 4; i++) {
                AgentSession s = session(i);
                assertThat(step(http, router, s).replica()).isEqualTo("sim-0");
                onSim0.add(s);
            }
            awaitRow(http, router, "sim-1's refusal shown", rows -> !rows.get(1).path("lora").path("loadRefused").isNull());
            assertThat(rows(http, router).get(1).path("lora").path("loadRefused").asText()).contains("VLLM_ALLOW_RUNTIME_LORA_UPDATING");
            // The fifth: still only sim-0 lists alpha; the load now goes to sim-2, which allows it.
            AgentSession fifth = session(4);
            assertThat(step(http, router, fifth).replica()).isEqualTo("sim-0");
            onSim0.add(fifth);
            awaitRow(http, router, "sim-2 lists alpha, loaded by the router", rows -> served(rows, 2).contains("alpha")
                    && rows.get(2).path("lora").path("loadedByRouter").toString().contains("alpha"));
            assertThat(served(rows(http, router), 1)).doesNotContain("alpha");

            Http.Reply sixth = step(http, router, session(5));
            assertThat(sixth.replica()).as("the next alpha session, sim-0 past its share").isEqualTo("sim-2");
            assertThat(sixth.decision()).isEqualTo("NEW");
            for (AgentSession s : onSim0) {
                Http.Reply next = step(http, router, s);
                assertThat(next.replica()).as("next step of %s", s.id()).isEqualTo("sim-0");
                assertThat(next.decision()).isEqualTo("STICKY");
            }
        }
    }

    @Test
    void offByDefaultNothingIsLoadedAndEveryAlphaSessionGoesWhereAlphaIsListed() throws Exception {
        try (SimPool sims = pool(); RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT))) {
            Http http = new Http();
            awaitRow(http, router, "sim-0 lists alpha", rows -> served(rows, 0).contains("alpha"));
            for (int i = 0; i < 6; i++) {
                assertThat(step(http, router, session(i)).replica()).isEqualTo("sim-0");
            }
            JsonNode rows = rows(http, router);
            assertThat(served(rows, 2)).doesNotContain("alpha");
            assertThat(rows.get(1).path("lora").path("loadRefused").isTextual()).as("sim-1 asked nothing, refused nothing").isFalse();
        }
    }

    private static AgentSession session(int i) {
        return new AgentSession("alpha-" + i + "-load", AgentSession.Identity.CLAUDE_CODE_HEADER, AgentSession.sharedSystem(3000), 1500, 30 + i)
                .model("alpha");
    }

    private static Http.Reply step(Http http, RouterUnderTest router, AgentSession s) {
        Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(16, false), s.headers());
        assertThat(r.status()).as("%s: %s", s.id(), r.body()).isEqualTo(200);
        s.append(AgentSession.replyText(r.body()), 300);
        return r;
    }

    private static String served(JsonNode rows, int i) {
        return rows.get(i).path("servedModels").toString();
    }

    private static JsonNode rows(Http http, RouterUnderTest router) {
        try {
            return JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void awaitRow(Http http, RouterUnderTest router, String what, Predicate<JsonNode> condition) {
        AtomicReference<JsonNode> last = new AtomicReference<>();
        Await.until(what, () -> {
            last.set(rows(http, router));
            return last.get().size() == 3 && condition.test(last.get());
        }, () -> String.valueOf(last.get()));
    }
}
