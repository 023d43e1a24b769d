package io.lmwarden.router.config;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * How this router finds its peers. {@code discovery} is empty for a router alone, {@code dns:<name>}
 * for a headless Service's A records (JGroups DNS_PING, on Kubernetes), or {@code static:host:port,...}
 * for a fixed list (JGroups TCPPING; tests on loopback). Members talk JGroups TCP on {@code bind:port};
 * failure detection listens on {@code port + 1}.
 */
public record ClusterSettings(Optional<Discovery> discovery, String bind, int port, String name) {

    public sealed interface Discovery permits Dns, Static {
    }

    public record Dns(String query) implements Discovery {
    }

    public record Static(List<String> hostPorts) implements Discovery {
        public Static {
            hostPorts = List.copyOf(hostPorts);
        }
    }

    public ClusterSettings {
        if (port < 1 || port > 65534) {
            throw new IllegalArgumentException("clusterPort must be 1..65534 (failure detection uses port + 1), got " + port);
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("clusterName must not be empty");
        }
    }

    public static ClusterSettings single() {
        return new ClusterSettings(Optional.empty(), "127.0.0.1", 7800, "lmw-router");
    }

    public boolean enabled() {
        return discovery.isPresent();
    }

    /** Parses the {@code cluster} setting. */
    public static Optional<Discovery> parseDiscovery(String spec) {
        String s = spec == null ? "" : spec.trim();
        if (s.isEmpty() || s.equals("none")) {
            return Optional.empty();
        }
        if (s.startsWith("dns:") && s.length() > 4) {
            return Optional.of(new Dns(s.substring(4)));
        }
        if (s.startsWith("static:") && s.length() > 7) {
            List<String> hosts = Arrays.stream(s.substring(7).split(",")).map(String::trim).filter(h -> !h.isEmpty()).toList();
            for (String h : hosts) {
                int colon = h.lastIndexOf(':');
                if (colon <= 0 || !h.substring(colon + 1).matches("\\d{1,5}")) {
                    throw new IllegalArgumentException("cluster: '" + h + "' is not host:port (in " + s + ")");
                }
            }
            return Optional.of(new Static(hosts));
        }
        throw new IllegalArgumentException("cluster must be empty (one router), dns:<headless service name> or "
                + "static:host:port,host:port; got '" + s + "'");
    }

    public ClusterSettings withStatic(List<String> hostPorts, int ownPort) {
        return new ClusterSettings(Optional.of(new Static(hostPorts)), bind, ownPort, name);
    }
}
