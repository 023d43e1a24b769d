package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.ReplicaView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which sessions are resident on which replica: a resident session's steps go home without asking; a session stops
 * being resident when it moves or is revoked (under pressure, or its slice is over). Their
 * working sets' blocks, the replicas' budgets and the peers' share are counted by its {@link KvLedger}, which it
 * keeps in step with the residencies.
 */
public final class ResidencyTable {

    /** What one replica carries: resident sessions, their blocks, and how many of their requests are in flight. */
    public record ReplicaLoad(int residentSessions, long usedBlocks, int inFlight) {
    }

    private final Map<String, Residency> sessions = new HashMap<>();
    private final KvLedger ledger;
    private final PeerResidents peers;
    private long handedOverToPeers;
    /**
     * Per replica, its residents, and those with nothing in flight in the order they went idle (oldest idle first):
     * the pump and every placement read one replica's, so none of them scans every session.
     */
    private final Map<String, ReplicaResidents> byReplica = new HashMap<>();

    /** One replica's residents. */
    private static final class ReplicaResidents {
        final Set<Residency> all = new LinkedHashSet<>();
        final LinkedHashMap<String, Residency> idleOldestFirst = new LinkedHashMap<>();
        int inFlight;
    }
    /**
     * @param budgetShare           share of each replica's KV capacity the resident working sets may fill
     * @param defaultCapacityTokens a replica's capacity until its engine reports one
     * @param peers                 what the other routers of the cluster hold resident
     */
    public ResidencyTable(double budgetShare, int defaultCapacityTokens, PeerResidents peers) {
        this.ledger = new KvLedger(budgetShare, defaultCapacityTokens, peers, sessions::get);
        this.peers = peers;
    }

    /** No peers, and each replica's whole capacity as its budget (the reference capacity until an engine reports one). */
    public ResidencyTable() {
        this(1.0, PrefixIndexes.DEFAULT_KV_CAPACITY_TOKENS, PeerResidents.NONE);
    }

    public synchronized boolean isResident(String session) {
        return sessions.containsKey(session);
    }

    public synchronized Optional<String> homeOf(String session) {
        Residency r = sessions.get(session);
        return r == null ? Optional.empty() : Optional.of(r.replica);
    }

    /** Blocks this working set would take on the replica beyond what its residents already hold. */
    public synchronized long extraBlocks(String replica, WorkingSet ws) {
        return ledger.extra(replica, ws);
    }

    public synchronized long usedBlocks(String replica) {
        return ledger.used(replica);
    }

    /** Whether the working set fits within {@code budgetBlocks} on the replica. An empty replica takes anything. */
    public synchronized boolean fits(String replica, WorkingSet ws, long budgetBlocks) {
        return ledger.fitsWithin(replica, ws, budgetBlocks);
    }

    /** Whether the working set fits what is left of the replica's budget, the other routers' residents counted. */
    public synchronized boolean fits(ReplicaView r, WorkingSet ws) {
        return ledger.fits(r, ws);
    }

    /** The replica's budget less what the other routers' residents hold there. */
    public synchronized long availableBlocks(ReplicaView r) {
        return ledger.available(r);
    }

    /** The replica's budget in blocks: its KV capacity times the budget share. */
    public synchronized long budgetBlocks(ReplicaView r) {
        return ledger.budgetBlocks(r);
    }

    /**
     * A step of the session starts on {@code replica}: it becomes (or stays) resident there with this
     * working set; a session that was resident elsewhere moves, and its old replica gets its blocks back.
     */
    public synchronized void stepStarted(String session, String replica, WorkingSet ws, long nowNanos) {
        Residency r = sessions.get(session);
        if (r == null) {
            r = new Residency(session, replica, ws, nowNanos);
            sessions.put(session, r);
            on(replica).all.add(r);
            ledger.add(replica, ws);
        } else if (r.replica.equals(replica)) {
            ledger.replace(replica, r.workingSet, ws);
            r.workingSet = ws;
        } else {
            ledger.remove(r.replica, r.workingSet);
            moveIndex(r, replica);
            r.workingSet = ws;
            ledger.add(replica, ws);
        }
        if (r.inFlight++ == 0) {
            on(r.replica).idleOldestFirst.remove(session);
        }
        on(r.replica).inFlight++;
    }

    private ReplicaResidents on(String replica) {
        return byReplica.computeIfAbsent(replica, k -> new ReplicaResidents());
    }

    /** The residency moves to {@code replica} in the per-replica indexes (its in-flight count and idle place with it). */
    private void moveIndex(Residency r, String replica) {
        ReplicaResidents from = on(r.replica);
        from.all.remove(r);
        from.idleOldestFirst.remove(r.session);
        from.inFlight -= r.inFlight;
        dropIfEmpty(r.replica, from);
        r.replica = replica;
        ReplicaResidents to = on(replica);
        to.all.add(r);
        to.inFlight += r.inFlight;
        if (r.inFlight == 0) {
            to.idleOldestFirst.put(r.session, r);
        }
    }

    private void dropIfEmpty(String replica, ReplicaResidents residents) {
        if (residents.all.isEmpty()) {
            byReplica.remove(replica);
        }
    }

    /**
     * The same step of the session goes to another replica (a retry, or the replica it was admitted to left): its
     * residency follows, with the step still counted once. A session that is no longer resident (its replica left the
     * pool) becomes resident there as {@link #stepStarted} would make it.
     */
    public synchronized void moved(String session, String replica, WorkingSet ws, long nowNanos) {
        Residency r = sessions.get(session);
        if (r == null) {
            stepStarted(session, replica, ws, nowNanos);
        } else if (!r.replica.equals(replica)) {
            ledger.remove(r.replica, r.workingSet);
            moveIndex(r, replica);
            ledger.add(replica, r.workingSet);
        }
    }

    /**
     * A step of the session ended. Returns whether the session is now idle (nothing else in flight).
     * A session revoked while its step ran is no longer here and nothing changes.
     */
    public synchronized boolean stepEnded(String session, long nowNanos) {
        Residency r = sessions.get(session);
        if (r == null) {
            return false;
        }
        ReplicaResidents residents = on(r.replica);
        if (r.inFlight > 0) {
            r.inFlight--;
            residents.inFlight--;
        }
        if (r.inFlight == 0) {
            r.idleSinceNanos = nowNanos;
            residents.idleOldestFirst.remove(session);
            residents.idleOldestFirst.put(session, r);
            return true;
        }
        return false;
    }

    /** How long the session has been resident, or -1 when it is not. */
    public synchronized long residentForNanos(String session, long nowNanos) {
        Residency r = sessions.get(session);
        return r == null ? -1 : nowNanos - r.residentSinceNanos;
    }

    /** The session gives up its residency (its slice is over, or a paused resident under pressure). */
    public synchronized boolean revoke(String session) {
        return drop(session);
    }

    private boolean drop(String session) {
        Residency r = sessions.remove(session);
        if (r == null) {
            return false;
        }
        unindex(r);
        ledger.remove(r.replica, r.workingSet);
        return true;
    }

    private void unindex(Residency r) {
        ReplicaResidents residents = on(r.replica);
        residents.all.remove(r);
        residents.idleOldestFirst.remove(r.session);
        residents.inFlight -= r.inFlight;
        dropIfEmpty(r.replica, residents);
    }

    /**
     * Hands the replica's paused residents whose step now runs through another router over to it: dropped here, not
     * counted as a revocation, so that a session's residency follows its latest step. Both routers holding it made every
     * revocation here futile — revoking a session a peer still holds frees nothing, since the peer's report then counts
     * its blocks — so the loop went on to revoke every paused resident: 429 of 432 admissions on one pod of a two-router
     * run, against 324 of 1,055 on one router (bench/results/2026-12-08-cluster-parity). The next step of a handed-over
     * session that comes back here is admitted at once (a peer holds it) and takes its residency back. Returns how many.
     */
    public synchronized int handOverRunningElsewhere(String replica) {
        ReplicaResidents residents = byReplica.get(replica);
        if (residents == null) {
            return 0;
        }
        List<String> handedOver = residents.idleOldestFirst.values().stream().map(r -> r.session).filter(peers::runsElsewhere).toList();
        handedOver.forEach(this::drop);
        handedOverToPeers += handedOver.size();
        return handedOver.size();
    }

    /** The residents of the replica with nothing in flight, here or through another router, and since when. */
    public synchronized List<Victims.Paused> pausedOn(String replica) {
        ReplicaResidents residents = byReplica.get(replica);
        if (residents == null) {
            return List.of();
        }
        List<Victims.Paused> out = new ArrayList<>(residents.idleOldestFirst.size());
        for (Residency r : residents.idleOldestFirst.values()) {
            if (!peers.runsElsewhere(r.session)) {
                out.add(new Victims.Paused(r.session, r.idleSinceNanos));
            }
        }
        return out;
    }

    /** Paused residents handed over to the router their latest step runs through ({@link #handOverRunningElsewhere}). */
    public synchronized long handedOverToPeers() {
        return handedOverToPeers;
    }

    /** What the other routers' residents hold on the replica beyond this router's residents ({@link KvLedger#peerBlocks}). */
    public synchronized long peerBlocks(String replica, List<PeerResident> peers) {
        return ledger.peerBlocks(replica, peers);
    }

    /** Blocks the working set would add on the replica beyond what this router's and the peers' residents hold there. */
    public synchronized long extraBlocks(String replica, WorkingSet ws, List<PeerResident> peers) {
        return ledger.extraBlocks(replica, ws, peers);
    }

    /** This router's residents as its peers see them. */
    public synchronized List<PeerResident> residents() {
        List<PeerResident> out = new ArrayList<>(sessions.size());
        sessions.values().forEach(r -> out.add(PeerResident.of(r.session, r.replica, r.workingSet, r.inFlight > 0)));
        return out;
    }

    public synchronized ReplicaLoad load(String replica) {
        ReplicaResidents residents = byReplica.get(replica);
        return residents == null ? new ReplicaLoad(0, usedBlocks(replica), 0)
                : new ReplicaLoad(residents.all.size(), usedBlocks(replica), residents.inFlight);
    }

    /** Per replica id, in id order: what {@code /api/replicas} and the metrics show. */
    public synchronized Map<String, ReplicaLoad> loads() {
        Map<String, ReplicaLoad> out = new LinkedHashMap<>();
        ledger.replicaIds().stream().sorted().forEach(id -> out.put(id, load(id)));
        return out;
    }

    public synchronized int size() {
        return sessions.size();
    }

    /** Every resident of the replica stops being resident (it left the pool, or drains); returns how many. */
    public synchronized int forgetReplica(String replica) {
        ReplicaResidents residents = byReplica.remove(replica);
        int gone = 0;
        if (residents != null) {
            for (Residency r : residents.all) {
                sessions.remove(r.session);
                gone++;
            }
        }
        ledger.forget(replica);
        return gone;
    }
}
