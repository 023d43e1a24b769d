package io.lmwarden.router.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.http.EngineRelease;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's version over real HTTP with simulated replicas: each replica's {@code GET /version} is read once when it
 * appears and again when it comes back from a restart, not at every scrape; {@code /api/replicas} shows it
 * ({@code engineVersion}, "unknown" for a replica without {@code /version}); and a replica older than a feature the
 * router uses with it (kvEvents: KV events and {@code return_token_ids}) gets a notice in {@code warnings} and one WARN
 * line, however many scrapes follow.
 */
class EngineVersionOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();
    /** Scrapes every 100 ms (RouterUnderTest's interval): this many intervals are many scrapes after the first read. */
    private static final long SCRAPES_MS = 2_000;

    private static List<JsonNode> rows(RouterUnderTest router) {
        try {
            List<JsonNode> rows = new ArrayList<>();
            JSON.readTree(HTTP.get(router.url() + "/api/replicas").body()).path("replicas").forEach(rows::add);
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> versions(RouterUnderTest router) {
        return rows(router).stream().map(r -> r.path("engineVersion").asText()).toList();
    }

    @Test
    void severalReplicasShowTheirOwnVersionReadOnceAndAgainAfterARestart() {
        SimPool sims = SimPool.startWithReleases(SimProfile.defaultProfile(), 20, EngineRelease.DEFAULT, new EngineRelease("0.12.0"),
                EngineRelease.NONE);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c)) {
            Await.until("every replica's version in /api/replicas", () -> versions(router).equals(List.of("0.26.0", "0.12.0", "unknown")),
                    () -> versions(router).toString());
            RouterUnderTest.sleep(SCRAPES_MS);
            assertThat(versions(router)).containsExactly("0.26.0", "0.12.0", "unknown");
            assertThat(sims.versionRequests(0)).as("sim-0's /version asked once, not at every scrape").isEqualTo(1);
            assertThat(sims.versionRequests(1)).as("sim-1's /version asked once, not at every scrape").isEqualTo(1);
            // Nothing the router uses here needs a newer engine (no publisher, no engine ranks, no host tier): no notice,
            // and none for the replica whose version is unknown.
            assertThat(rows(router)).allSatisfy(r -> assertThat(r.path("warnings").isArray() && r.path("warnings").isEmpty())
                    .as("warnings of %s: %s", r.path("id"), r.path("warnings")).isTrue());

            // sim-1 comes back upgraded, as after a redeploy: its version is read again.
            sims.kill(1);
            Await.until("sim-1 not ready", () -> !rows(router).get(1).path("ready").asBoolean(), () -> rows(router).get(1).toString());
            sims.restart(1, List.of(AgentSession.MODEL), new EngineRelease("0.26.1"));
            Await.until("sim-1's new version", () -> versions(router).get(1).equals("0.26.1"), () -> versions(router).toString());
            RouterUnderTest.sleep(SCRAPES_MS);
            assertThat(sims.versionRequests(1)).as("the restarted sim-1's /version asked once").isEqualTo(1);
            assertThat(versions(router)).containsExactly("0.26.0", "0.26.1", "unknown");
        }
    }

    @Test
    void aReplicaTooOldForKvEventsIsWarnedOnceInTheLogAndShownWithItsRow() {
        Logger log = Logger.getLogger(EngineVersionWarnings.class.getName());
        List<LogRecord> warned = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warned.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        SimPool sims = SimPool.startWithKvEvents(SimProfile.defaultProfile(), 20, new EngineRelease("0.10.0"), true, true);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c)) {
            Await.until("a notice on each replica", () -> rows(router).stream().allMatch(r -> r.path("warnings").size() > 0),
                    () -> rows(router).stream().map(r -> r.path("id") + " " + r.path("engineVersion") + " " + r.path("warnings")).toList().toString());
            RouterUnderTest.sleep(SCRAPES_MS);
            for (JsonNode r : rows(router)) {
                assertThat(r.path("engineVersion").asText()).isEqualTo("0.10.0");
                // 0.10.0 has KV events with medium, not return_token_ids (0.10.2), which following KV events asks for.
                assertThat(r.path("warnings")).as("%s", r.path("id")).hasSize(1);
                assertThat(r.path("warnings").get(0).asText()).contains("return_token_ids", "needs vLLM 0.10.2 or newer", "runs 0.10.0",
                        "kvEvents");
            }
            List<String> lines = warned.stream().map(r -> r.getMessage() + " " + java.util.Arrays.toString(r.getParameters())).toList();
            assertThat(lines).as("one WARN line per replica, not one per scrape").hasSize(2);
            assertThat(lines).allSatisfy(l -> assertThat(l).contains("older than a feature", "feature=return_token_ids", "engineVersion=0.10.0"));
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("endpoint=sim-0")).anySatisfy(l -> assertThat(l).contains("endpoint=sim-1"));
        } finally {
            log.removeHandler(capture);
        }
    }

    @Test
    void aCurrentEngineWithKvEventsOnGetsNoNotice() {
        SimPool sims = SimPool.startWithKvEvents(SimProfile.defaultProfile(), 20, EngineRelease.DEFAULT, true);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c)) {
            Await.until("the version read", () -> versions(router).equals(List.of("0.26.0")), () -> versions(router).toString());
            RouterUnderTest.sleep(SCRAPES_MS);
            assertThat(rows(router).get(0).path("warnings")).isEmpty();
        }
    }
}
