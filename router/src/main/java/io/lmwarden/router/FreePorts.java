package io.lmwarden.router;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** A run of consecutive free TCP ports on the loopback, for publishers that take a base port and add to it. */
final class FreePorts {

    private FreePorts() {
    }

    static int consecutive(int count) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 60_000 - count);
            if (allFree(base, count)) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports found on 127.0.0.1");
    }

    private static boolean allFree(int base, int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int p = base; p < base + count; p++) {
                ServerSocket s = new ServerSocket();
                held.add(s);
                s.setReuseAddress(true);
                s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), p));
            }
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a probe
                }
            }
        }
    }
}
