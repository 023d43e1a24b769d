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
public record ClusterSettings(
        @Key("cluster") Optional<Discovery> discovery,
        @Key("clusterBind") String bind,
        @Key("clusterPort") int port,
        @Key("clusterName") String name) {

    public sealed interface Discovery permits Dns, Static {
    }

    public record Dns(String query) implements Discovery {
    }

    public record Static(List<String> hostPorts) implements Discovery {
        public Static {
            hostPorts = List.copyOf(hostPorts);
        }

        /** The host of a listed {@code host:port} (validated when the setting was parsed). */
        public static String host(String hostPort) {
            return hostPort.substring(0, hostPort.lastIndexOf(':'));
        }

        /** The port of a listed {@code host:port}. */
        public static int port(String hostPort) {
            return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
        }
    }

    public static final Setting<Optional<Discovery>> CLUSTER = Setting.ofGeneric("cluster", "discovery",
            "java.util.Optional<" + Discovery.class.getName() + ">", ClusterSettings::parseDiscovery, "",
            "router pods that share pins and load: empty (this router alone), dns:<headless Service name> (Kubernetes) or "
                    + "static:host:port,... (every member's clusterBind:clusterPort)");
    public static final Setting<String> CLUSTER_BIND = Setting.text("clusterBind", "127.0.0.1",
            "address the cluster transport (JGroups TCP) binds; on Kubernetes the pod IP");
    public static final Setting<Integer> CLUSTER_PORT = Setting.integer("clusterPort", 7800,
            "cluster transport port; failure detection listens on clusterPort + 1").between(1, 65534);
    public static final Setting<String> CLUSTER_NAME = Setting.text("clusterName", "lmw-router",
            "routers join only a cluster of this name (one per ModelDeployment)").check(n -> !n.isBlank(), "a name, not empty");

    /** A router alone, with the defaults. */
    public static ClusterSettings single() {
        return new ClusterSettings(Optional.empty(), CLUSTER_BIND.defaultValue(), CLUSTER_PORT.defaultValue(), CLUSTER_NAME.defaultValue());
    }

    public boolean enabled() {
        return discovery.isPresent();
    }

    /** Parses the {@code cluster} setting. */
    static Optional<Discovery> parseDiscovery(String spec) {
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
                    throw new IllegalArgumentException("must list host:port pairs; '" + h + "' is not one");
                }
            }
            return Optional.of(new Static(hosts));
        }
        throw new IllegalArgumentException("must be empty (one router), dns:<headless service name> or static:host:port,host:port");
    }

    /** Members listed by address on loopback or a fixed network, this one on {@code ownPort}. */
    public ClusterSettings withStatic(List<String> hostPorts, int ownPort) {
        return new ClusterSettings(Optional.of(new Static(hostPorts)), bind, ownPort, name);
    }
}
