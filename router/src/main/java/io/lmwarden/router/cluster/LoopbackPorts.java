package io.lmwarden.router.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free loopback ports for routers clustered on one machine (tests, benchmarks): each port p comes with
 * p + 1 free too, since JGroups' failure detection listens on clusterPort + 1.
 */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    public static List<Integer> freePairs(int n) {
        List<Integer> out = new ArrayList<>();
        while (out.size() < n) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int p = s.getLocalPort();
                if (p < 65534 && !out.contains(p) && !out.contains(p + 1) && !out.contains(p - 1) && free(p + 1)) {
                    out.add(p);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
        }
        return out;
    }

    private static boolean free(int port) {
        try (ServerSocket next = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
