package io.lmwarden.router.proxy;

import io.lmwarden.router.config.UpstreamSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The stream idle timeout is a silence, not a total: a stream that keeps talking outlasts it many times over. */
class StreamIdleTimeoutTest {

    private static final Http HTTP = new Http();

    @Test
    void aStreamLongerThanTheIdleTimeoutWhoseTokensComeOftenIsNotCut() {
        // One token per ~150 ms (a slow engine step), 20 tokens: ~3 s of stream against a 600 ms idle timeout.
        SimProfile slow = ProfileOverrides.apply(SimProfile.named("tiny"), "stepBaseMs=150,decodeMsPerSeq=0");
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, slow, 1),
                c -> c.with(UpstreamSettings.STREAM_IDLE_TIMEOUT, Duration.ofMillis(600)))) {
            String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"max_tokens\":20,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"a long answer, slowly\"}]}";
            long t0 = System.nanoTime();
            List<String> lines = HTTP.streamLines(router.url() + "/v1/chat/completions", body, Map.of());
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(tookMs).as("the stream lasted several idle timeouts").isGreaterThan(1_800);
            assertThat(lines).as("ended normally: %s", lines).contains("data: [DONE]");
            assertThat(lines).noneMatch(l -> l.contains("\"error\""));
        }
    }
}
