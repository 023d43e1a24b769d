package io.lmwarden.router.cluster;

import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.admission.PeerEvidence;
import io.lmwarden.router.placement.admission.PeerResidents;
import io.lmwarden.router.placement.admission.SessionFacts;

import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the routers of one deployment share, so that several pods act as one: the session pins, what admission
 * knows of each session, and each pod's load per replica and engagement evidence. Two implementations: {@link LocalCluster} for a single router and
 * {@link InfinispanCluster} for router pods that form a cluster.
 */
public interface RouterCluster extends AutoCloseable {

    SessionPins pins();

    /** Requests the other routers have in flight on the replica (0 alone), as of their last report. */
    int peerInFlight(String replicaId);

    /** KV blocks the other routers' resident sessions hold on the replica (0 alone), as of their last report. */
    long peerResidentBlocks(String replicaId);

    /** The sessions the other routers hold resident (none alone), as of their last reports: admission's shared budget. */
    PeerResidents peerResidents();

    /** What admission knows of each session, shared (alone: nothing shared). Reads are local, writes do not wait. */
    SessionFacts sessionFacts();

    /** The other routers' engagement evidence (none alone), as of their last reports. */
    PeerEvidence peerEvidence();

    /** Tells the peers this router's own load; called on a timer, must not block. */
    void publish(MemberLoad own);

    /** The members and whether they agree, for /api/replicas and the UI. */
    ClusterView view();

    /**
     * The value all members share under {@code key}: the one already there, else {@code proposal}
     * (the first writer wins); blocks until decided. Empty for a router alone.
     */
    default Optional<String> agree(String key, String proposal) {
        return Optional.empty();
    }

    /**
     * The replicas operators drain, as every member sees them: {@code onChange} hears the whole set at once and after
     * every change, made through any member's admin API.
     */
    void watchDrains(Consumer<Set<String>> onChange);

    /** An operator drains the replica ({@code true}) or takes it back; every member hears it. */
    void drain(String replicaId, boolean drain);

    @Override
    void close();
}
