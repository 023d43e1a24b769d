package io.lmwarden.bench.load;

import io.lmwarden.common.process.ChildProcess;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Many idle keep-alive client connections against one router, while service must go on. Each connection
 * sends one {@code GET /healthz}, reads its answer, and then stays open and silent: what a crowd of
 * pooled HTTP clients looks like (a connection that never sends a byte is cut at {@code headerTimeout}
 * anyway). The connections come from {@code clients} child JVMs of {@code perClient} each (one process
 * could hold fewer than {@code ulimit -n}); the router runs in its own JVM with {@code maxClientConnections}
 * below its descriptor limit, the simulator in another. A {@link ServiceProbe} sends /readyz, /healthz and
 * a real chat request every 250 ms from before the first connection to the end.
 * <p>
 * Run: {@code java -cp bench/target/lmw-bench.jar io.lmwarden.bench.load.IdleConnections [clients] [perClient] [maxClientConnections] [holdSeconds]}
 * (defaults 2, 10000, 15000, 60). The child mode, {@code hold URL N SECONDS}, is what each client JVM runs.
 */
public final class IdleConnections {

    private IdleConnections() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("hold")) {
            hold(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            return;
        }
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int perClient = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int cap = args.length > 2 ? Integer.parseInt(args[2]) : 15_000;
        int holdSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 60;
        System.out.println("start: " + LoadReport.uptime());
        try (ChildProcess sim = ChildJvm.start("sim", "256m", "io.lmwarden.sim.SimMain", List.of("--replicas", "1", "--port", "0",
                "--host", "127.0.0.1", "--profile", "tiny", "--time-scale", "10"))) {
            String line = sim.awaitLine(l -> l.startsWith("sim-") && l.contains("http://"), Duration.ofSeconds(60), true);
            String replica = line.substring(0, line.indexOf(' ')) + "=" + ChildJvm.urlIn(line);
            try (ChildProcess router = ChildJvm.start("router", "1g", "io.lmwarden.router.RouterMain", List.of("--replicas", replica,
                    "--host", "127.0.0.1", "--port", "0", "--max-client-connections", String.valueOf(cap)))) {
                String url = ChildJvm.urlIn(router.awaitLine(l -> l.contains("LM Warden router on http://"), Duration.ofSeconds(60), true));
                LoadReport.awaitReady(url, 1);
                String chat = "{\"model\":\"Qwen/Qwen3-4B-Instruct-2507\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"still serving?\"}]}";
                List<ChildProcess> holders = new ArrayList<>();
                int maxRouterFds = 0;
                try (ServiceProbe probe = new ServiceProbe(url, 1, chat, 250)) {
                    for (int c = 0; c < clients; c++) {
                        holders.add(ChildJvm.start("client-" + c, "512m", IdleConnections.class.getName(),
                                List.of("hold", url, String.valueOf(perClient), String.valueOf(holdSeconds))));
                    }
                    long end = System.nanoTime() + (holdSeconds + 120) * 1_000_000_000L;
                    int done = 0;
                    List<String> results = new ArrayList<>();
                    while (done < clients && System.nanoTime() < end) {
                        Thread.sleep(1000);
                        maxRouterFds = Math.max(maxRouterFds, LoadReport.openFds(router.pid()));
                        for (ChildProcess h : holders) {
                            for (String l : h.drainLines()) {
                                System.out.println(l);
                                if (l.startsWith("HOLD-RESULT")) {
                                    results.add(l);
                                    done++;
                                }
                            }
                        }
                        System.out.printf("routerFds=%d %s%n", LoadReport.openFds(router.pid()), probe.summary());
                    }
                    System.out.println("RESULT connections=" + clients * perClient + " maxClientConnections=" + cap
                            + " routerFdsMax=" + maxRouterFds);
                    results.forEach(r -> System.out.println("RESULT " + r));
                    System.out.println("RESULT service " + probe.summary());
                } finally {
                    holders.forEach(ChildProcess::close);
                }
            }
        }
        System.out.println("end: " + LoadReport.uptime());
    }

    /** Child mode: opens {@code n} connections, one GET /healthz each, then holds them silent and counts the server's closes. */
    private static void hold(String url, int n, int holdSeconds) throws IOException, InterruptedException {
        URI u = URI.create(url);
        InetSocketAddress address = new InetSocketAddress(u.getHost(), u.getPort());
        byte[] get = ("GET /healthz HTTP/1.1\r\nHost: " + u.getHost() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        Selector selector = Selector.open();
        int opened = 0;
        int answered = 0;
        int failed = 0;
        long t0 = System.nanoTime();
        ByteBuffer buf = ByteBuffer.allocate(4096);
        List<SocketChannel> channels = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            SocketChannel ch;
            try {
                ch = SocketChannel.open(address);
                opened++;
                ch.socket().setSoTimeout(10_000);
                ch.write(ByteBuffer.wrap(get));
                buf.clear();
                // The answer is small: one read holds it (a closed or refused connection reads -1 or fails).
                int read = ch.read(buf);
                String head = new String(buf.array(), 0, Math.max(0, read), StandardCharsets.ISO_8859_1);
                if (read > 0 && head.startsWith("HTTP/1.1 200")) {
                    answered++;
                    ch.configureBlocking(false);
                    ch.register(selector, SelectionKey.OP_READ);
                    channels.add(ch);
                } else {
                    failed++;
                    ch.close();
                }
            } catch (IOException e) {
                failed++;
            }
            if ((i + 1) % 2000 == 0) {
                System.out.printf("HOLD progress opened=%d answered=%d failed=%d in %.1fs%n", opened, answered, failed, (System.nanoTime() - t0) / 1e9);
            }
        }
        System.out.printf("HOLD all opened=%d answered=%d failed=%d in %.1fs; holding %d s%n", opened, answered, failed,
                (System.nanoTime() - t0) / 1e9, holdSeconds);
        int closedByServer = 0;
        long end = System.nanoTime() + holdSeconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            selector.select(1000);
            for (SelectionKey k : selector.selectedKeys()) {
                SocketChannel ch = (SocketChannel) k.channel();
                buf.clear();
                int read;
                try {
                    read = ch.read(buf);
                } catch (IOException e) {
                    read = -1;
                }
                if (read < 0) {
                    closedByServer++;
                    k.cancel();
                    ch.close();
                }
            }
            selector.selectedKeys().clear();
        }
        System.out.printf("HOLD-RESULT opened=%d answered=%d failed=%d closedByServerWhileIdle=%d stillOpen=%d%n",
                opened, answered, failed, closedByServer, answered - closedByServer);
        for (SocketChannel ch : channels) {
            ch.close();
        }
    }
}
