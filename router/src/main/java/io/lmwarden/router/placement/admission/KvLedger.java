package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.ReplicaView;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Admission's arithmetic, all of it: the KV blocks the resident sessions' working sets hold on each replica (a block
 * several residents share counted once, {@link ReplicaLedger}), each replica's budget (its KV capacity × kvBudget),
 * and what the other routers' residents take of it ({@link PeerResidents}): each session once, each shared prefix
 * once. Not thread-safe: {@link ResidencyTable} owns it and guards it.
 */
final class KvLedger {

    private final Map<String, ReplicaLedger> replicas = new HashMap<>();
    private final double budgetShare;
    private final int defaultCapacityTokens;
    private final PeerResidents peers;
    /** This router's own resident sessions, by session: a peer's copy of one of them is counted here. */
    private final Function<String, Residency> own;

    /**
     * @param budgetShare           share of each replica's KV capacity the resident working sets may fill
     * @param defaultCapacityTokens a replica's capacity until its engine reports one
     */
    KvLedger(double budgetShare, int defaultCapacityTokens, PeerResidents peers, Function<String, Residency> own) {
        this.budgetShare = budgetShare;
        this.defaultCapacityTokens = defaultCapacityTokens;
        this.peers = peers;
        this.own = own;
    }

    void add(String replica, WorkingSet ws) {
        ledger(replica).add(ws);
    }

    void remove(String replica, WorkingSet ws) {
        ledger(replica).remove(ws);
    }

    /** A resident's next step on the same replica. */
    void replace(String replica, WorkingSet old, WorkingSet now) {
        ledger(replica).replace(old, now);
    }

    long used(String replica) {
        ReplicaLedger l = replicas.get(replica);
        return l == null ? 0 : l.usedBlocks();
    }

    /** Blocks this working set would take on the replica beyond what this router's residents hold there. */
    long extra(String replica, WorkingSet ws) {
        return ledger(replica).extraBlocks(ws);
    }

    /**
     * The replica's budget in blocks: what it keeps of resident working sets without recomputing (its KV capacity, the
     * engine's else the default; or its host-memory KV tier when that is larger, {@link ReplicaKvCapacity}) times the
     * budget share. With a tier, a resident paused long enough for its GPU blocks to be evicted still returns home for
     * the load time, so it keeps its place in the budget instead of queueing as a newcomer.
     */
    long budgetBlocks(ReplicaView r) {
        long capacity = ReplicaKvCapacity.of(r, defaultCapacityTokens).residentTokens();
        return (long) (capacity * budgetShare / PrefixIndexes.TOKENS_PER_BLOCK);
    }

    /**
     * Whether the working set fits what is left of the replica's budget. A replica nobody holds anything on takes
     * any working set; one where other routers' residents hold blocks does not.
     */
    boolean fits(ReplicaView r, WorkingSet ws) {
        List<PeerResident> others = peers.on(r.id());
        long peerBlocks = others.isEmpty() ? 0 : peerBlocks(r.id(), others);
        if (peerBlocks == 0) {
            return fitsWithin(r.id(), ws, budgetBlocks(r));
        }
        return used(r.id()) + extraBlocks(r.id(), ws, others) <= budgetBlocks(r) - peerBlocks;
    }

    /** The replica's budget less what the other routers' residents hold there (beyond this router's). */
    long available(ReplicaView r) {
        List<PeerResident> others = peers.on(r.id());
        return Math.max(0, budgetBlocks(r) - (others.isEmpty() ? 0 : peerBlocks(r.id(), others)));
    }

    /** Whether the working set fits within {@code budgetBlocks} on the replica. An empty replica takes anything. */
    boolean fitsWithin(String replica, WorkingSet ws, long budgetBlocks) {
        ReplicaLedger l = ledger(replica);
        return l.usedBlocks() == 0 || l.usedBlocks() + l.extraBlocks(ws) <= budgetBlocks;
    }

    /**
     * The blocks the other routers' residents hold on the replica beyond what this router's residents hold: each
     * session once (one resident here too is this router's to count, plus what it grew by at a peer since its last
     * step here), and a prefix it shares with a resident here or with a peer session counted before it once.
     */
    long peerBlocks(String replica, List<PeerResident> peerResidents) {
        ReplicaLedger here = ledger(replica);
        Set<Long> counted = new HashSet<>();
        long sum = 0;
        for (PeerResident p : peerResidents) {
            Residency mine = p.session().isEmpty() ? null : own.apply(p.session());
            if (mine != null) {
                // Resident here too: counted in this ledger, but with the working set of the last step that reached
                // this router; a peer that served a later step reports it grown by that step's prompt and reply.
                if (mine.replica.equals(replica)) {
                    sum += Math.max(0, p.blocks() - mine.workingSet.blocks());
                }
                continue;
            }
            long shared = p.sharedPrefixBlocks(h -> here.holds(h) || counted.contains(h));
            sum += Math.max(0, p.blocks() - shared);
            for (long c : p.checkpoints()) {
                counted.add(c);
            }
        }
        return sum;
    }

    /** Blocks the working set would add on the replica beyond what this router's and the peers' residents hold there. */
    long extraBlocks(String replica, WorkingSet ws, List<PeerResident> peerResidents) {
        long beyondOwn = ledger(replica).extraBlocks(ws);
        if (peerResidents.isEmpty()) {
            return beyondOwn;
        }
        Set<Long> peerCheckpoints = new HashSet<>();
        peerResidents.forEach(p -> {
            for (long c : p.checkpoints()) {
                peerCheckpoints.add(c);
            }
        });
        long sharedWithPeers = PeerResident.of("", replica, ws).sharedPrefixBlocks(peerCheckpoints::contains);
        return Math.min(beyondOwn, ws.blocks() - sharedWithPeers);
    }

    Set<String> replicaIds() {
        return replicas.keySet();
    }

    void forget(String replica) {
        replicas.remove(replica);
    }

    private ReplicaLedger ledger(String replica) {
        return replicas.computeIfAbsent(replica, id -> new ReplicaLedger());
    }
}
