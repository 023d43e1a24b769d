package io.lmwarden.router.cluster;

import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.admission.PeerResidents;

import java.util.List;

/** One router alone (router.replicas: 1): the pins stay in its own memory and it has no peers. */
public final class LocalCluster implements RouterCluster {

    private final SessionPins pins;
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
    public void close() {
    }
}
