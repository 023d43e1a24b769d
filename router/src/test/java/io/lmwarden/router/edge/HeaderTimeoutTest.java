package io.lmwarden.router.edge;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slowloris over a raw socket: a client trickling its request head one byte at a time, well within the
 * 8 KB header limit and never silent for as long as the idle timeout, is cut at {@code headerTimeout}
 * with an API-shaped 408, while a kept-alive connection idle between requests is left alone.
 */
class HeaderTimeoutTest {

    private static final long HEADER_TIMEOUT_MS = 1000;
    /** Far above the header timeout: only the header deadline can explain a cut near 1 s. */
    private static final long IDLE_TIMEOUT_MS = 20_000;
    private static RouterUnderTest router;

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 5),
                c -> c.with(ServerSettings.HEADER_TIMEOUT, Duration.ofMillis(HEADER_TIMEOUT_MS))
                        .with(ServerSettings.BODY_TIMEOUT, Duration.ofSeconds(20)).with(ServerSettings.CLIENT_IDLE_TIMEOUT, Duration.ofMillis(IDLE_TIMEOUT_MS)));
    }

    @AfterAll
    static void stop() {
        router.close();
    }

    @Test
    void aHeadTrickledOneBytePerFiftyMillisecondsIsCutWithA408AtTheHeaderTimeout() throws Exception {
        StringBuilder head = new StringBuilder("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (int i = 0; head.length() < 4000; i++) {
            head.append("X-Pad-").append(i).append(": ").append("a".repeat(40)).append("\r\n");
        }
        try (Socket s = connect()) {
            long start = System.nanoTime();
            AtomicInteger sent = new AtomicInteger();
            Thread writer = trickle(s.getOutputStream(), head.toString().getBytes(StandardCharsets.ISO_8859_1), 50, sent);
            String answer = readUntilClosed(s.getInputStream());
            long cutAfterMs = (System.nanoTime() - start) / 1_000_000;
            writer.interrupt();
            writer.join(5000);
            assertThat(answer).startsWith("HTTP/1.1 408").contains("application/json").contains("\"code\":408").contains("headerTimeout");
            assertThat(cutAfterMs).as("cut by the header deadline, not by the idle timeout").isBetween(HEADER_TIMEOUT_MS - 100, 4 * HEADER_TIMEOUT_MS);
            assertThat(sent.get()).as("bytes of the head sent before the cut (of %d)", head.length()).isLessThan(head.length());
        }
        assertGoodRequestServed();
    }

    @Test
    void aConnectionThatSendsNothingIsClosedWithoutAnAnswer() throws Exception {
        try (Socket s = connect()) {
            long start = System.nanoTime();
            String answer = readUntilClosed(s.getInputStream());
            long closedAfterMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(answer).isEmpty();
            assertThat(closedAfterMs).isBetween(HEADER_TIMEOUT_MS - 100, 4 * HEADER_TIMEOUT_MS);
        }
    }

    @Test
    void aKeptAliveConnectionIdleBetweenRequestsIsNotCutButItsNextTrickledHeadIs() throws Exception {
        byte[] probe = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(probe);
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
            // Idle between requests for twice the header timeout: that is the idle timeout's business, not the deadline's.
            Thread.sleep(2 * HEADER_TIMEOUT_MS);
            out.write(probe);
            out.flush();
            assertThat(readResponse(in)).as("second request on the kept-alive connection").startsWith("HTTP/1.1 200");
            long start = System.nanoTime();
            Thread writer = trickle(out, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".concat("b".repeat(200))
                    .getBytes(StandardCharsets.ISO_8859_1), 50, new AtomicInteger());
            String answer = readUntilClosed(in);
            long cutAfterMs = (System.nanoTime() - start) / 1_000_000;
            writer.interrupt();
            writer.join(5000);
            assertThat(answer).startsWith("HTTP/1.1 408");
            assertThat(cutAfterMs).isBetween(HEADER_TIMEOUT_MS - 100, 4 * HEADER_TIMEOUT_MS);
        }
        assertGoodRequestServed();
    }

    private static Socket connect() throws IOException {
        URI u = URI.create(router.url());
        Socket s = new Socket();
        s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000);
        s.setSoTimeout((int) (IDLE_TIMEOUT_MS / 2));
        return s;
    }

    /** Writes one byte every {@code pauseMs} on its own thread, until done, interrupted or the socket fails. */
    private static Thread trickle(OutputStream out, byte[] bytes, long pauseMs, AtomicInteger sent) {
        Thread t = new Thread(() -> {
            try {
                for (byte b : bytes) {
                    out.write(b);
                    out.flush();
                    sent.incrementAndGet();
                    Thread.sleep(pauseMs);
                }
            } catch (IOException | InterruptedException e) {
                // Cut by the server, or stopped by the test.
            }
        }, "slowloris");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Everything the server sends until it closes the connection. */
    private static String readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                got.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept the connection open past the test's read timeout; got: " + got, e);
        } catch (java.net.SocketException e) {
            // A reset after the answer: what came before it counts.
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    /** One response with a Content-Length body, read off a connection that stays open. */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int contentLength = -1;
        int headEnd = -1;
        while (headEnd < 0 || got.size() < headEnd + contentLength) {
            int b = in.read();
            if (b < 0) {
                throw new AssertionError("connection closed after: " + got);
            }
            got.write(b);
            if (headEnd < 0 && got.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                headEnd = got.size();
                String head = got.toString(StandardCharsets.ISO_8859_1).toLowerCase();
                int at = head.indexOf("content-length:");
                contentLength = at < 0 ? 0 : Integer.parseInt(head.substring(at + 15, head.indexOf("\r\n", at)).trim());
            }
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    private static void assertGoodRequestServed() {
        Http.Reply good = new Http().post(router.url() + "/v1/chat/completions", "{\"model\":\"" + io.lmwarden.router.testing.AgentSession.MODEL
                + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"after\"}]}", Map.of());
        assertThat(good.status()).isEqualTo(200);
    }
}
