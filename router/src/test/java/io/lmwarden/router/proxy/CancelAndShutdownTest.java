package io.lmwarden.router.proxy;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class CancelAndShutdownTest {

    private static final String LONG_STREAM = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"max_tokens\":2000,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"write a long answer\"}]}";

    @Test
    void aClientThatDisconnectsCancelsTheEnginesWork() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 1), c -> c)) {
            int port = Integer.parseInt(router.url().substring(router.url().lastIndexOf(':') + 1));
            try (Socket s = new Socket("127.0.0.1", port)) {
                byte[] body = LONG_STREAM.getBytes(StandardCharsets.UTF_8);
                OutputStream out = s.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                int dataLines = 0;
                String line;
                while (dataLines < 3 && (line = in.readLine()) != null) {
                    if (line.startsWith("data: ")) {
                        dataLines++;
                    }
                }
                assertThat(dataLines).isEqualTo(3);
                assertThat(router.sims().running(0)).isEqualTo(1);
            }
            Await.until("the engine's request aborted after the client left", () -> router.sims().running(0) == 0,
                    () -> "engine requests running: " + router.sims().running(0));
            String metrics = new Http().get(router.sims().url(0) + "/metrics").body();
            assertThat(metrics).containsPattern("vllm:request_success_total\\{[^}]*finished_reason=\"abort\"[^}]*\\} 1");
            assertThat(new Http().get(router.url() + "/api/replicas").body()).contains("\"inFlight\":0");
        }
    }

    @Test
    void shutdownLetsTheStreamInFlightFinish() throws Exception {
        try (SimPool sims = SimPool.start(1, SimProfile.defaultProfile(), 10)) {
            LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(sims.routerEntries()).with(ServerSettings.HOST, "127.0.0.1"));
            String body = LONG_STREAM.replace("2000", "150");
            CompletableFuture<List<String>> stream = CompletableFuture.supplyAsync(
                    () -> new Http().streamLines(router.url() + "/v1/chat/completions", body, Map.of()));
            Await.until("the stream running in the engine", () -> sims.running(0) > 0, () -> "engine requests running: 0");
            router.close();
            // Its whole stream, not a cut one: the router's close waited for it (a hang fails at the guard).
            List<String> lines = stream.get(Await.HANG_GUARD.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertThat(lines).contains("data: [DONE]");
        }
    }
}
