package io.lmwarden.router.proxy;

import io.lmwarden.common.process.ChildProcess;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A router process gets SIGTERM while three sessions stream and three more requests wait in its admission queue (a KV
 * budget of one session on the one replica): {@code /readyz} turns 503 at once, a request sent within
 * {@code shutdownAcceptFor} is still served, then new connections are refused, and every request open at the signal
 * ends with 200 and its whole body before the process exits, within {@code shutdownGrace}.
 */
@Tag("processes")
class SigtermShutdownTest {

    private static final int STREAMS = 3;
    private static final int QUEUED = 3;
    private static final Duration ACCEPT_FOR = Duration.ofSeconds(2);

    @Test
    void aSigtermdRouterFinishesItsStreamsAndQueuedRequests() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(STREAMS + QUEUED + 1);
        try (SimPool sims = SimPool.start(1, SimProfile.defaultProfile(), 2);
             ChildProcess router = ChildProcess.jvm("io.lmwarden.router.RouterMain", List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"))
                     .name("sigterm-router")
                     .args(List.of("--replicas", String.join(",", sims.routerEntries()), "--port", "0", "--host", "127.0.0.1",
                             "--scrape-interval", "100ms", "--kv-budget", "0.0001", "--admission-engage", "always", "--residency-idle", "1s",
                             "--queue-keep-alive", "200ms", "--shutdown-grace", "90s", "--shutdown-accept-for", ACCEPT_FOR.toSeconds() + "s"))
                     .env(Map.of("LMW_DEPLOYMENT", "term-md"))
                     .start()) {
            String banner = router.awaitLine(l -> l.startsWith("LM Warden router on http://"), Duration.ofSeconds(60), false);
            String url = banner.substring(banner.indexOf("http://"), banner.indexOf(' ', banner.indexOf("http://")));
            int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
            Http http = new Http();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (http.get(url + "/readyz").status() != 200 && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(50);
            }
            assertThat(http.get(url + "/readyz").status()).isEqualTo(200);

            List<CompletableFuture<Http.Reply>> open = new ArrayList<>();
            for (int i = 0; i < STREAMS + QUEUED; i++) {
                // Streams first, then non-streaming requests: all but the first wait for the budget.
                boolean stream = i < STREAMS;
                AgentSession s = new AgentSession("term-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, "sigterm", 400, 50 + i);
                String body = s.nextBody(stream ? 60 : 20, stream);
                open.add(CompletableFuture.supplyAsync(() -> new Http().post(url + "/v1/messages", body, s.headers()), clients));
            }
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (queueLength(http, url) < STREAMS + QUEUED - 1 && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(20);
            }
            assertThat(queueLength(http, url)).as("requests waiting in the admission queue at the signal").isGreaterThanOrEqualTo(STREAMS + QUEUED - 1);

            long signalled = System.nanoTime();
            router.signal("TERM");
            deadline = System.nanoTime() + ACCEPT_FOR.toNanos();
            Http.Reply ready = http.get(url + "/readyz");
            while (ready.status() != 503 && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(20);
                ready = http.get(url + "/readyz");
            }
            assertThat(ready.status()).as("/readyz after SIGTERM").isEqualTo(503);
            assertThat(ready.body()).contains("\"stopping\":true");
            // Still accepting: load balancers may not have noticed yet.
            AgentSession late = new AgentSession("term-late", AgentSession.Identity.CLAUDE_CODE_HEADER, "sigterm", 300, 99);
            String lateBody = late.nextBody(10, true);
            CompletableFuture<Http.Reply> lateReply = CompletableFuture.supplyAsync(() -> new Http().post(url + "/v1/messages", lateBody, late.headers()), clients);
            open.add(lateReply);

            // After the accept window, no new connection is taken (also once the process has gone).
            long sinceSignal = System.nanoTime() - signalled;
            RouterUnderTest.sleep(Math.max(0, ACCEPT_FOR.toMillis() + 2000 - sinceSignal / 1_000_000));
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);

            for (int i = 0; i < open.size(); i++) {
                Http.Reply r = open.get(i).get(90, TimeUnit.SECONDS);
                assertThat(r.status()).as("request %d after SIGTERM: %s", i, r.body()).isEqualTo(200);
                if (i < STREAMS || i == open.size() - 1) {
                    assertThat(r.body()).as("stream %d whole", i).contains("event: message_stop");
                } else {
                    assertThat(r.body()).as("queued request %d whole", i).contains("\"stop_reason\"").endsWith("}");
                }
            }
            router.waitFor(Duration.ofSeconds(90));
            assertThat(router.output()).contains("shutdown complete").doesNotContain("shutdown grace over");
        } finally {
            clients.shutdownNow();
        }
    }

    private static int queueLength(Http http, String url) {
        for (String line : http.get(url + "/metrics").body().split("\n")) {
            // The operator's LMW_DEPLOYMENT tags every meter.
            if (line.startsWith("lmw_queue_length{deployment=\"term-md\"}")) {
                return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return -1;
    }
}
