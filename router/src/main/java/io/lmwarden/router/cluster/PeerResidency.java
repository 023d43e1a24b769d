package io.lmwarden.router.cluster;

import io.lmwarden.router.placement.admission.PeerResident;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The peers' residents, merged from their load reports: per replica, each session once (when two routers
 * both report a session, the larger working set, its later step, stands), and the set of those sessions.
 * A peer that reports no sessions but blocks per replica (an older router) counts with those, as they are.
 * {@code running}: the sessions with a step in flight through any of the peers.
 */
record PeerResidency(Map<String, List<PeerResident>> byReplica, Set<String> sessions, Set<String> running) {

    static final PeerResidency EMPTY = new PeerResidency(Map.of(), Set.of(), Set.of());

    static PeerResidency of(List<MemberLoad> peers) {
        Map<String, PeerResident> bySession = new HashMap<>();
        Set<String> running = new HashSet<>();
        Map<String, List<PeerResident>> byReplica = new HashMap<>();
        for (MemberLoad r : peers) {
            if (r.residents().isEmpty()) {
                r.residentBlocks().forEach((replica, blocks) -> {
                    if (blocks > 0) {
                        byReplica.computeIfAbsent(replica, k -> new ArrayList<>()).add(PeerResident.opaque(replica, blocks));
                    }
                });
                continue;
            }
            for (PeerResident p : r.residents()) {
                bySession.merge(p.session(), p, (a, b) -> b.blocks() > a.blocks() ? b : a);
                if (p.running()) {
                    running.add(p.session());
                }
            }
        }
        bySession.values().forEach(p -> byReplica.computeIfAbsent(p.replica(), k -> new ArrayList<>()).add(p));
        Map<String, List<PeerResident>> frozen = new HashMap<>();
        byReplica.forEach((replica, list) -> frozen.put(replica, List.copyOf(list)));
        return new PeerResidency(Map.copyOf(frozen), Set.copyOf(bySession.keySet()), Set.copyOf(running));
    }
}
