package io.lmwarden.router.proxy;

import io.lmwarden.router.config.UpstreamSettings;
import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request that has sent nothing to its client is retried on every other replica the budget allows,
 * each at most once: with each replica armed to fail its next request once, a replay on a replica that
 * had already failed would succeed, so a final 503 with every fault used up means each was tried exactly once.
 */
class RetryBudgetTest {

    private static final Http HTTP = new Http();
    private static final String CHAT = "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":4,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"retry budget\"}]}";
    private static RouterUnderTest router;
    /** The same pool behind a router that tries two replicas at most. */
    private static LmWardenRouter twoAttempts;

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(3, SimProfile.named("tiny"), 5), c -> c);
        twoAttempts = LmWardenRouter.start(io.lmwarden.router.config.RouterConfig.forReplicas(router.sims().routerEntries())
                .with(ServerSettings.HOST, "127.0.0.1").withScrapeInterval(Duration.ofMillis(100)).with(UpstreamSettings.RETRY_ATTEMPTS, 2).with(UpstreamSettings.RETRY_BUDGET, Duration.ofMinutes(1)));
    }

    @AfterAll
    static void stop() {
        twoAttempts.close();
        router.close();
    }

    @AfterEach
    void clearFaults() {
        IntStream.range(0, 3).forEach(i -> HTTP.delete(router.sims().url(i) + "/sim/faults"));
    }

    @Test
    void everyReplicaIsTriedOnceAndNoneTwice() {
        armAll();
        Http.Reply r = HTTP.post(router.url() + "/v1/chat/completions", CHAT, Map.of("X-Session-Id", "budget-all"));
        assertThat(r.status()).as("every replica failed once: %s", r.body()).isEqualTo(503);
        assertThat(r.body()).contains("\"code\":503").contains("3 replica(s) tried");
        assertThat(stillArmed()).as("replicas whose fault was not used: every one was tried").isZero();
        // Nothing is armed any more: the next request is served.
        assertThat(HTTP.post(router.url() + "/v1/chat/completions", CHAT, Map.of("X-Session-Id", "budget-all")).status()).isEqualTo(200);
    }

    @Test
    void twoFailuresBeforeTheFirstByteStillEndInAnAnswer() {
        // Two of three replicas fail: the old single retry lost such a request whenever it met both.
        for (int n = 0; n < 3; n++) {
            fault(0);
            fault(1);
            Http.Reply r = HTTP.post(router.url() + "/v1/chat/completions", CHAT, Map.of("X-Session-Id", "two-of-three-" + n));
            assertThat(r.status()).as("request %d: %s", n, r.body()).isEqualTo(200);
            assertThat(r.replica()).isEqualTo("sim-2");
        }
    }

    @Test
    void retryAttemptsBoundsTheReplicasTried() {
        armAll();
        Http.Reply r = HTTP.post(twoAttempts.url() + "/v1/chat/completions", CHAT, Map.of("X-Session-Id", "budget-two"));
        assertThat(r.status()).isEqualTo(503);
        assertThat(stillArmed()).as("with retryAttempts 2, one replica is never tried").isEqualTo(1);
    }

    private static void armAll() {
        IntStream.range(0, 3).forEach(RetryBudgetTest::fault);
    }

    private static void fault(int i) {
        assertThat(HTTP.post(router.sims().url(i) + "/sim/faults", "{\"failNext\":1,\"status\":503}", Map.of()).status()).isEqualTo(200);
    }

    /** Replicas whose armed failure is still waiting: a direct request to each uses it up. */
    private static long stillArmed() {
        return IntStream.range(0, 3)
                .filter(i -> HTTP.post(router.sims().url(i) + "/v1/chat/completions", CHAT, Map.of()).status() == 503).count();
    }
}
