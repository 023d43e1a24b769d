package io.lmwarden.router.pool;

import java.util.List;
import java.util.function.Consumer;

/** Where the replica set comes from: a static list, or Kubernetes EndpointSlices. */
public interface ReplicaDiscovery extends AutoCloseable {

    /** Starts watching; {@code onChange} receives the whole current set on every change. */
    void start(Consumer<List<DiscoveredReplica>> onChange);

    /** A short description for logs and the API, e.g. {@code static(4)} or {@code endpointslices(ns/svc)}. */
    String describe();

    @Override
    void close();
}
