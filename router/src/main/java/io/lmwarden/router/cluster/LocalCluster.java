package io.lmwarden.router.cluster;

import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.admission.PeerEvidence;
import io.lmwarden.router.placement.admission.PeerResidents;
import io.lmwarden.router.placement.admission.SessionFacts;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** One router alone (router.replicas: 1): the pins stay in its own memory and it has no peers. */
public final class LocalCluster implements RouterCluster {

    private final SessionPins pins;
    private final Set<String> drains = new TreeSet<>();
    private final List<Consumer<Set<String>>> drainWatchers = new CopyOnWriteArrayList<>();
    private volatile MemberLoad last = new MemberLoad(java.util.Map.of(), java.util.Map.of(), 0, 0);

    public LocalCluster(SessionPins pins) {
        this.pins = pins;
    }

    @Override
    public SessionPins pins() {
        return pins;
    }

    @Override
    public int peerInFlight(String replicaId) {
        return 0;
    }

    @Override
    public long peerResidentBlocks(String replicaId) {
        return 0;
    }

    @Override
    public PeerResidents peerResidents() {
        return PeerResidents.NONE;
    }

    @Override
    public SessionFacts sessionFacts() {
        return SessionFacts.NONE;
    }

    @Override
    public PeerEvidence peerEvidence() {
        return PeerEvidence.NONE;
    }

    @Override
    public void publish(MemberLoad own) {
        last = own;
    }

    @Override
    public ClusterView view() {
        MemberLoad r = last;
        int inFlight = r.inFlight().values().stream().mapToInt(Integer::intValue).sum();
        return new ClusterView("single", "self", "self", List.of(new ClusterView.Member("self", true, true, pins.size(), inFlight, 0)), true);
    }

    @Override
    public void watchDrains(Consumer<Set<String>> onChange) {
        drainWatchers.add(onChange);
        onChange.accept(drainsNow());
    }

    @Override
    public void drain(String replicaId, boolean drain) {
        Set<String> now;
        synchronized (drains) {
            if (!(drain ? drains.add(replicaId) : drains.remove(replicaId))) {
                return;
            }
            now = Set.copyOf(drains);
        }
        drainWatchers.forEach(w -> w.accept(now));
    }

    private Set<String> drainsNow() {
        synchronized (drains) {
            return Set.copyOf(drains);
        }
    }

    @Override
    public void close() {
    }
}
