package io.lmwarden.bench.pool;

import io.lmwarden.common.net.LoopbackPorts;
import io.lmwarden.router.config.ClusterSettings;

import java.util.List;
import java.util.Optional;

/**
 * The cluster settings of routers the bench clusters on one machine: JGroups TCP bound to
 * 127.0.0.1 on free port pairs, every member listed to each (TCPPING), no multicast. A name of its own
 * keeps such a cluster apart from any other on the machine.
 */
record LoopbackCluster(List<Integer> ports, String name) {

    public LoopbackCluster {
        ports = List.copyOf(ports);
    }

    /** Room for {@code members} members on free loopback ports. */
    static LoopbackCluster ofFreePorts(int members, String name) {
        return new LoopbackCluster(LoopbackPorts.freePairs(members), name);
    }

    List<String> hostPorts() {
        return ports.stream().map(p -> "127.0.0.1:" + p).toList();
    }

    /** The settings of member i (0-based). */
    ClusterSettings member(int i) {
        return new ClusterSettings(Optional.of(new ClusterSettings.Static(hostPorts())), "127.0.0.1", ports.get(i), name);
    }
}
