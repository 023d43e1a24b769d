package io.lmwarden.router.cluster;

import io.lmwarden.router.config.ClusterSettings;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The other routers the discovery names (the static list, or the headless Service's addresses on the cluster port),
 * and whether any of them answers: a router that found itself alone while one does formed a cluster of its own.
 */
final class ListedPeers {

    private static final int CONNECT_TIMEOUT_MS = 500;

    private final List<InetSocketAddress> peers;

    private ListedPeers(List<InetSocketAddress> peers) {
        this.peers = List.copyOf(peers);
    }

    /** The listed members other than this router itself ({@code settings.bind()}:{@code settings.port()}). */
    static ListedPeers of(ClusterSettings settings) {
        List<InetSocketAddress> out = new ArrayList<>();
        ClusterSettings.Discovery d = settings.discovery().orElse(null);
        if (d instanceof ClusterSettings.Static st) {
            for (String hostPort : st.hostPorts()) {
                InetSocketAddress a = new InetSocketAddress(ClusterSettings.Static.host(hostPort), ClusterSettings.Static.port(hostPort));
                if (!isSelf(a, settings)) {
                    out.add(a);
                }
            }
        } else if (d instanceof ClusterSettings.Dns dns) {
            try {
                for (InetAddress address : InetAddress.getAllByName(dns.query())) {
                    InetSocketAddress a = new InetSocketAddress(address, settings.port());
                    if (!isSelf(a, settings)) {
                        out.add(a);
                    }
                }
            } catch (UnknownHostException none) {
                // No pod is listed yet: nobody to wait for.
            }
        }
        return new ListedPeers(out);
    }

    private static boolean isSelf(InetSocketAddress a, ClusterSettings settings) {
        if (a.getPort() != settings.port() || a.getAddress() == null) {
            return false;
        }
        try {
            return a.getAddress().equals(InetAddress.getByName(settings.bind()));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether any listed peer accepts a connection on its cluster port now. */
    boolean anyAnswers() {
        for (InetSocketAddress a : peers) {
            try (Socket s = new Socket()) {
                s.connect(a, CONNECT_TIMEOUT_MS);
                return true;
            } catch (IOException down) {
                // not this one
            }
        }
        return false;
    }

    boolean isEmpty() {
        return peers.isEmpty();
    }
}
