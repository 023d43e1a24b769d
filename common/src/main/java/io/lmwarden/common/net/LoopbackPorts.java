package io.lmwarden.common.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free ports on 127.0.0.1 for processes that tests and load tools start on one machine. Free when asked: another
 * process may take one before it is bound, which on a test machine does not happen often enough to matter.
 */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /** One free port. */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /**
     * Ports p, each with p + 1 free too: for routers clustered on one machine, whose JGroups failure detection
     * listens on clusterPort + 1.
     */
    public static List<Integer> freePairs(int n) {
        List<Integer> out = new ArrayList<>();
        while (out.size() < n) {
            int p = free();
            if (p < 65534 && !out.contains(p) && !out.contains(p + 1) && !out.contains(p - 1) && free(p + 1)) {
                out.add(p);
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
