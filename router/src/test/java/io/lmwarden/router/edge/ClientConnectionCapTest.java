package io.lmwarden.router.edge;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code maxClientConnections} counts connections from the moment they are accepted (the server speaks
 * HTTP/1.1 only, so Vert.x hands each one over at once, not with its first request): at the cap the
 * longest-idle one is closed to make room, and the newcomer is served.
 */
class ClientConnectionCapTest {

    private static final int CAP = 3;
    private static RouterUnderTest router;

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 5), c -> c.with(ServerSettings.MAX_CLIENT_CONNECTIONS, CAP));
    }

    @AfterAll
    static void stop() {
        router.close();
    }

    @Test
    void atTheCapTheLongestIdleConnectionMakesRoomForANewOne() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < CAP; i++) {
                Socket s = connect();
                assertThat(healthz(s)).as("connection %d", i).startsWith("HTTP/1.1 200");
                idle.add(s);
                Thread.sleep(50);
            }
            Socket newcomer = connect();
            idle.add(newcomer);
            assertThat(healthz(newcomer)).as("the connection over the cap is served").startsWith("HTTP/1.1 200");
            assertThat(closedByServer(idle.get(0))).as("the longest-idle connection was closed for it").isTrue();
            assertThat(closedByServer(idle.get(CAP - 1))).as("a more recently idle one stays").isFalse();
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    private static Socket connect() throws IOException {
        URI u = URI.create(router.url());
        Socket s = new Socket();
        s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000);
        s.setSoTimeout(3000);
        return s;
    }

    private static String healthz(Socket s) throws IOException {
        s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        byte[] buf = new byte[4096];
        int n = s.getInputStream().read(buf);
        return n < 0 ? "" : new String(buf, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** Whether the server closed the (idle, silent) connection: a read ends at once instead of timing out. */
    private static boolean closedByServer(Socket s) throws IOException {
        s.setSoTimeout(1000);
        InputStream in = s.getInputStream();
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException e) {
            return true;
        }
    }
}
