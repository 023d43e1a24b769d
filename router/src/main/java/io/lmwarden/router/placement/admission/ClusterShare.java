package io.lmwarden.router.placement.admission;

/**
 * What admission shares with the other routers of its cluster: the sessions they hold resident (their blocks come out
 * of this router's share of each replica's budget, and a session resident through another router is resident here
 * too), the sessions' facts, and their engagement evidence. All read from this member's memory, written without
 * waiting. {@link #ALONE} for a router on its own.
 */
public record ClusterShare(PeerResidents residents, SessionFacts facts, PeerEvidence evidence) {

    public static final ClusterShare ALONE = new ClusterShare(PeerResidents.NONE, SessionFacts.NONE, PeerEvidence.NONE);

    /** Only the other routers' residents (a test of the shared budget). */
    public static ClusterShare residents(PeerResidents residents) {
        return new ClusterShare(residents, SessionFacts.NONE, PeerEvidence.NONE);
    }
}
