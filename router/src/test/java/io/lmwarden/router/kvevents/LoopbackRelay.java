package io.lmwarden.router.kvevents;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on a loopback port of its own (bound at 0) that forwards each connection to a target port, for tests:
 * {@link #restartBehind} drops every relayed connection and sends the next ones to another port, so a publisher can be
 * restarted behind an address that stays the same without a port ever being bound twice; {@link #sendNewConnectionsTo}
 * leaves the connections it has (one to a peer that never greets, say) and sends the next ones elsewhere.
 */
final class LoopbackRelay implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> open = new ArrayList<>();
    private volatile int targetPort;

    LoopbackRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "test-relay-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections from now on go to {@code port}; those relayed so far stay as they are. */
    void sendNewConnectionsTo(int port) {
        targetPort = port;
    }

    /** Drops every connection relayed so far; connections from now on go to {@code port}. */
    void restartBehind(int port) {
        sendNewConnectionsTo(port);
        closeConnections();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream;
                try {
                    upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                } catch (IOException e) {
                    client.close(); // nothing listens there: the client connects again
                    continue;
                }
                synchronized (open) {
                    open.add(client);
                    open.add(upstream);
                }
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "test-relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private void closeConnections() {
        synchronized (open) {
            open.forEach(LoopbackRelay::closeQuietly);
            open.clear();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        closeConnections();
    }
}
