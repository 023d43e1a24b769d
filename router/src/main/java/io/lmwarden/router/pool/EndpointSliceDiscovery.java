package io.lmwarden.router.pool;

import io.lmwarden.common.logging.LogFields;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Watches the EndpointSlices of the replica Service with a fabric8 informer (JDK HTTP client, never
 * fabric8's Vert.x 4 client in this Vert.x 5 process). Replica id = the pod name from {@code targetRef}.
 */
public final class EndpointSliceDiscovery implements ReplicaDiscovery {

    private static final Logger LOG = Logger.getLogger(EndpointSliceDiscovery.class.getName());
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    /**
     * The replica Service's ports for rank 0's KV-event publisher and replay socket (the operator's names; further
     * ranks' ports, named {@code kv-events-<r>}, are rank 0's + r, so these two are enough).
     */
    static final String KV_EVENTS_PORT = "kv-events";
    static final String KV_REPLAY_PORT = "kv-replay";
    private static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

    private final String service;
    private final KubernetesClient client;
    private final String namespace;
    private SharedIndexInformer<EndpointSlice> informer;

    public EndpointSliceDiscovery(String service, Optional<String> namespace) {
        this.service = service;
        this.client = new KubernetesClientBuilder().withHttpClientFactory(new JdkHttpClientFactory()).build();
        this.namespace = namespace.or(EndpointSliceDiscovery::serviceAccountNamespace)
                .orElseGet(() -> Optional.ofNullable(client.getNamespace()).orElse("default"));
    }

    private static Optional<String> serviceAccountNamespace() {
        try {
            return Files.exists(SERVICE_ACCOUNT_NAMESPACE)
                    ? Optional.of(Files.readString(SERVICE_ACCOUNT_NAMESPACE).trim())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public void start(Consumer<List<DiscoveredReplica>> onChange) {
        Runnable publish = () -> onChange.accept(replicasOf(informer.getStore().list()));
        informer = client.discovery().v1().endpointSlices().inNamespace(namespace)
                .withLabel(SERVICE_NAME_LABEL, service)
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(EndpointSlice obj) {
                        publish.run();
                    }

                    @Override
                    public void onUpdate(EndpointSlice oldObj, EndpointSlice newObj) {
                        publish.run();
                    }

                    @Override
                    public void onDelete(EndpointSlice obj, boolean deletedFinalStateUnknown) {
                        publish.run();
                    }
                });
        LogFields.info(LOG, "watching EndpointSlices", "namespace", namespace, "service", service);
        publish.run();
    }

    /** All endpoints of all slices; an endpoint in several slices (during a rollover) counts once. */
    static List<DiscoveredReplica> replicasOf(List<EndpointSlice> slices) {
        Map<String, DiscoveredReplica> byId = new LinkedHashMap<>();
        for (EndpointSlice slice : slices) {
            Integer port = portOf(slice);
            int kv = namedPort(slice, KV_EVENTS_PORT);
            int replay = namedPort(slice, KV_REPLAY_PORT);
            if (port == null || slice.getEndpoints() == null) {
                continue;
            }
            for (Endpoint e : slice.getEndpoints()) {
                if (e.getAddresses() == null || e.getAddresses().isEmpty()) {
                    continue;
                }
                String address = e.getAddresses().get(0);
                String host = address.contains(":") ? "[" + address + "]" : address;
                String id = e.getTargetRef() != null && e.getTargetRef().getName() != null
                        ? e.getTargetRef().getName()
                        : address + ":" + port;
                // The API says a missing "ready" condition means ready; terminating endpoints get no new work. One that
                // terminates but still serves (its pod's preStop waits for the requests in flight) drains.
                var c = e.getConditions();
                boolean terminating = c != null && Boolean.TRUE.equals(c.getTerminating());
                boolean ready = c == null || (!Boolean.FALSE.equals(c.getReady()) && !terminating);
                boolean draining = terminating && !Boolean.FALSE.equals(c.getServing());
                DiscoveredReplica d = new DiscoveredReplica(id, "http://" + host + ":" + port, ready, 0, draining, kv,
                        kv > 0 ? replay : 0);
                byId.merge(id, d, (a, b) -> a.ready() || !b.serving() ? a : b);
            }
        }
        return new ArrayList<>(byId.values());
    }

    /** A port by name, 0 when the slice has none of that name. */
    private static int namedPort(EndpointSlice slice, String name) {
        if (slice.getPorts() != null) {
            for (EndpointPort p : slice.getPorts()) {
                if (name.equals(p.getName()) && p.getPort() != null) {
                    return p.getPort();
                }
            }
        }
        return 0;
    }

    private static Integer portOf(EndpointSlice slice) {
        if (slice.getPorts() == null || slice.getPorts().isEmpty()) {
            return null;
        }
        for (EndpointPort p : slice.getPorts()) {
            if ("http".equals(p.getName()) && p.getPort() != null) {
                return p.getPort();
            }
        }
        return slice.getPorts().get(0).getPort();
    }

    @Override
    public String describe() {
        return "endpointslices(" + namespace + "/" + service + ")";
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
        client.close();
    }
}
