package io.lmwarden.operator.dependent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a replica pod publishes vLLM's KV cache events, and the {@code --kv-events-config} that says so.
 *
 * <p>Each engine (data-parallel rank r) binds its ZMQ PUB socket on the events port + r and its ROUTER
 * (replay) socket on the replay port + r: vLLM's {@code ZmqEventPublisher.offset_endpoint_port} offsets both
 * endpoints by the rank. With one engine the ports are 5557 and 5558; with N engines in one pod the replay
 * range starts at 5557 + N, so that rank 1's events port does not collide with rank 0's replay port.
 * The router finds the two base ports by name ({@link #EVENTS_NAME}, {@link #REPLAY_NAME}) in the replica
 * Service's EndpointSlices and adds the rank.
 */
public record KvEventPorts(int engines) {
    public static final int EVENTS_PORT = 5557;
    public static final String EVENTS_NAME = "kv-events";
    public static final String REPLAY_NAME = "kv-replay";
    /** The ZMQ topic every replica publishes under (the first frame of each message). */
    public static final String TOPIC = "kv-events";

    private static final ObjectMapper JSON = new ObjectMapper();

    public KvEventPorts {
        if (engines < 1) {
            throw new IllegalArgumentException("engines must be at least 1, got " + engines);
        }
    }

    public int eventsPort(int rank) {
        return EVENTS_PORT + rank;
    }

    public int replayPort(int rank) {
        return EVENTS_PORT + engines + rank;
    }

    /** The value of vLLM's {@code --kv-events-config} (the simulator takes the same). */
    public String configJson() {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("enable_kv_cache_events", true);
        config.put("publisher", "zmq");
        config.put("endpoint", "tcp://*:" + eventsPort(0));
        config.put("replay_endpoint", "tcp://*:" + replayPort(0));
        config.put("topic", TOPIC);
        try {
            return JSON.writeValueAsString(config);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings and a boolean always serializes", e);
        }
    }

    /** Container ports: rank 0's under the contract names, further ranks as {@code kv-events-<r>} / {@code kv-replay-<r>}. */
    public List<ContainerPort> containerPorts() {
        List<ContainerPort> ports = new ArrayList<>();
        for (int rank = 0; rank < engines; rank++) {
            ports.add(new ContainerPortBuilder().withName(name(EVENTS_NAME, rank)).withContainerPort(eventsPort(rank)).withProtocol("TCP").build());
        }
        for (int rank = 0; rank < engines; rank++) {
            ports.add(new ContainerPortBuilder().withName(name(REPLAY_NAME, rank)).withContainerPort(replayPort(rank)).withProtocol("TCP").build());
        }
        return ports;
    }

    /** The same ports on the headless replica Service, so they appear in its EndpointSlices. */
    public List<ServicePort> servicePorts() {
        return containerPorts().stream().map(p -> new ServicePortBuilder().withName(p.getName()).withProtocol("TCP")
                .withPort(p.getContainerPort()).withTargetPort(new IntOrString(p.getContainerPort())).build()).toList();
    }

    /** Both ranges as NetworkPolicy ports ({@code endPort} when there is more than one engine). */
    public List<NetworkPolicyPort> networkPolicyPorts() {
        return List.of(range(eventsPort(0), eventsPort(engines - 1)), range(replayPort(0), replayPort(engines - 1)));
    }

    private static NetworkPolicyPort range(int first, int last) {
        NetworkPolicyPortBuilder port = new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(first));
        return (last > first ? port.withEndPort(last) : port).build();
    }

    private static String name(String base, int rank) {
        return rank == 0 ? base : base + "-" + rank;
    }
}
