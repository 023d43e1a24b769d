package io.lmwarden.router.cluster;

import io.lmwarden.router.config.ClusterSettings;

import java.util.List;
import java.util.Optional;

/**
 * The cluster settings of routers clustered on one machine (tests, benchmarks): JGroups TCP bound to
 * 127.0.0.1 on free port pairs, every member listed to each (TCPPING), no multicast. A name of its own
 * keeps such a cluster apart from any other on the machine.
 */
public record LoopbackCluster(List<Integer> ports, String name) {

    public LoopbackCluster {
        ports = List.copyOf(ports);
    }

    /** Room for {@code members} members on free loopback ports. */
    public static LoopbackCluster ofFreePorts(int members, String name) {
        return new LoopbackCluster(LoopbackPorts.freePairs(members), name);
    }

    public List<String> hostPorts() {
        return ports.stream().map(p -> "127.0.0.1:" + p).toList();
    }

    /** The settings of member i (0-based). */
    public ClusterSettings member(int i) {
        return new ClusterSettings(Optional.of(new ClusterSettings.Static(hostPorts())), "127.0.0.1", ports.get(i), name);
    }
}
