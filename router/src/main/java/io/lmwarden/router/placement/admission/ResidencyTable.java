package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which sessions are resident on which replica, and how many KV blocks their working sets take there
 * (shared blocks once). A resident session's steps go home without asking; a session stops being
 * resident when it has had nothing in flight for the idle limit, when it moves, or when it is revoked.
 */
public final class ResidencyTable {

    /** What one replica carries: resident sessions, their blocks, and how many of their requests are in flight. */
    public record ReplicaLoad(int residentSessions, long usedBlocks, int inFlight) {
    }

    private final Map<String, Residency> sessions = new HashMap<>();
    private final Map<String, ReplicaLedger> ledgers = new HashMap<>();
    /**
     * Residents with nothing in flight, in the order they went idle (so oldest idle first, on the
     * controller's monotonic clock): expiry, which runs whenever a step ends, stops at the first one
     * still within the limit instead of walking every resident.
     */
    private final LinkedHashMap<String, Residency> idleOldestFirst = new LinkedHashMap<>();
    /** Sessions that lost their residency while pausing (idle limit or pressure), most recent last; bounded. */
    private final LinkedHashMap<String, Long> interrupted = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_INTERRUPTED;
        }
    };
    private static final int MAX_INTERRUPTED = 65_536;

    public synchronized boolean isResident(String session) {
        return sessions.containsKey(session);
    }

    public synchronized Optional<String> homeOf(String session) {
        Residency r = sessions.get(session);
        return r == null ? Optional.empty() : Optional.of(r.replica);
    }

    /** Blocks this working set would take on the replica beyond what its residents already hold. */
    public synchronized long extraBlocks(String replica, WorkingSet ws) {
        return ledger(replica).extraBlocks(ws);
    }

    public synchronized long usedBlocks(String replica) {
        ReplicaLedger l = ledgers.get(replica);
        return l == null ? 0 : l.usedBlocks();
    }

    /** Whether the working set fits within {@code budgetBlocks} on the replica. An empty replica takes anything. */
    public synchronized boolean fits(String replica, WorkingSet ws, long budgetBlocks) {
        ReplicaLedger l = ledger(replica);
        return l.usedBlocks() == 0 || l.usedBlocks() + l.extraBlocks(ws) <= budgetBlocks;
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
            ledger(replica).add(ws);
        } else if (r.replica.equals(replica)) {
            ledger(replica).replace(r.workingSet, ws);
            r.workingSet = ws;
        } else {
            ledger(r.replica).remove(r.workingSet);
            r.replica = replica;
            r.workingSet = ws;
            ledger(replica).add(ws);
        }
        if (r.inFlight++ == 0) {
            idleOldestFirst.remove(session);
        }
    }

    /** A step moved to another replica before it was sent (a retry): its residency follows. */
    public synchronized void moved(String session, String replica) {
        Residency r = sessions.get(session);
        if (r != null && !r.replica.equals(replica)) {
            ledger(r.replica).remove(r.workingSet);
            r.replica = replica;
            ledger(replica).add(r.workingSet);
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
        r.inFlight = Math.max(0, r.inFlight - 1);
        if (r.inFlight == 0) {
            r.idleSinceNanos = nowNanos;
            idleOldestFirst.remove(session);
            idleOldestFirst.put(session, r);
            return true;
        }
        return false;
    }

    /** How long the session has been resident, or -1 when it is not. */
    public synchronized long residentForNanos(String session, long nowNanos) {
        Residency r = sessions.get(session);
        return r == null ? -1 : nowNanos - r.residentSinceNanos;
    }

    /** The session gives up its residency because it had its slice: when it comes back it queues like a newcomer. */
    public synchronized boolean revoke(String session) {
        interrupted.remove(session);
        return drop(session);
    }

    /**
     * Whether the session lost its residency by pausing (the idle limit, or pressure) less than
     * {@code withinNanos} ago: a session in progress, which should not wait behind newcomers.
     */
    public synchronized boolean wasInterrupted(String session, long nowNanos, long withinNanos) {
        Long at = interrupted.get(session);
        return at != null && nowNanos - at < withinNanos;
    }

    private boolean drop(String session) {
        Residency r = sessions.remove(session);
        if (r == null) {
            return false;
        }
        idleOldestFirst.remove(session);
        ledger(r.replica).remove(r.workingSet);
        return true;
    }

    private void interrupt(String session, long nowNanos) {
        if (drop(session)) {
            interrupted.put(session, nowNanos);
        }
    }

    /** Ends the residency of every session idle for at least {@code idleNanos}; returns how many. */
    public synchronized int expireIdle(long nowNanos, long idleNanos) {
        List<String> expired = new ArrayList<>();
        for (Residency r : idleOldestFirst.values()) {
            if (nowNanos - r.idleSinceNanos < idleNanos) {
                break;
            }
            expired.add(r.session);
        }
        expired.forEach(s -> interrupt(s, nowNanos));
        return expired.size();
    }

    /**
     * Under pressure: revokes idle residents of the replica, longest idle first, until the working
     * set fits the budget or no idle resident is left. Residents with a request in flight, or idle only
     * since {@code idleSinceAtMostNanos} or later, are never touched. Returns the sessions revoked.
     */
    public synchronized List<String> revokeIdleUntilFits(String replica, WorkingSet ws, long budgetBlocks, long idleSinceAtMostNanos,
                                                         long nowNanos) {
        List<Residency> idle = new ArrayList<>();
        for (Residency r : sessions.values()) {
            if (r.replica.equals(replica) && r.idle() && r.idleSinceNanos <= idleSinceAtMostNanos) {
                idle.add(r);
            }
        }
        idle.sort(Comparator.comparingLong(r -> r.idleSinceNanos));
        List<String> revoked = new ArrayList<>();
        for (Residency r : idle) {
            if (fits(replica, ws, budgetBlocks)) {
                break;
            }
            interrupt(r.session, nowNanos);
            revoked.add(r.session);
        }
        return revoked;
    }

    /**
     * The blocks the other routers' residents hold on the replica beyond what this router's residents hold:
     * each session once (one resident here too is this router's to count, plus what it grew by at a peer since its
     * last step here), and a prefix it shares with a
     * resident here or with a peer session counted before it once.
     */
    public synchronized long peerBlocks(String replica, List<PeerResident> peers) {
        ReplicaLedger own = ledger(replica);
        Set<Long> counted = new HashSet<>();
        long sum = 0;
        for (PeerResident p : peers) {
            Residency mine = p.session().isEmpty() ? null : sessions.get(p.session());
            if (mine != null) {
                // Resident here too: counted in this ledger, but with the working set of the last step that reached
                // this router; a peer that served a later step reports it grown by that step's prompt and reply.
                if (mine.replica.equals(replica)) {
                    sum += Math.max(0, p.blocks() - mine.workingSet.blocks());
                }
                continue;
            }
            long shared = p.sharedPrefixBlocks(h -> own.holds(h) || counted.contains(h));
            sum += Math.max(0, p.blocks() - shared);
            for (long c : p.checkpoints()) {
                counted.add(c);
            }
        }
        return sum;
    }

    /** Blocks the working set would add on the replica beyond what this router's and the peers' residents hold there. */
    public synchronized long extraBlocks(String replica, WorkingSet ws, List<PeerResident> peers) {
        long beyondOwn = ledger(replica).extraBlocks(ws);
        if (peers.isEmpty()) {
            return beyondOwn;
        }
        Set<Long> peerCheckpoints = new HashSet<>();
        peers.forEach(p -> {
            for (long c : p.checkpoints()) {
                peerCheckpoints.add(c);
            }
        });
        long sharedWithPeers = PeerResident.of("", replica, ws).sharedPrefixBlocks(peerCheckpoints::contains);
        return Math.min(beyondOwn, ws.blocks() - sharedWithPeers);
    }

    /** This router's residents as its peers see them. */
    public synchronized List<PeerResident> residents() {
        List<PeerResident> out = new ArrayList<>(sessions.size());
        sessions.values().forEach(r -> out.add(PeerResident.of(r.session, r.replica, r.workingSet)));
        return out;
    }

    public synchronized ReplicaLoad load(String replica) {
        int resident = 0;
        int inFlight = 0;
        for (Residency r : sessions.values()) {
            if (r.replica.equals(replica)) {
                resident++;
                inFlight += r.inFlight;
            }
        }
        return new ReplicaLoad(resident, usedBlocks(replica), inFlight);
    }

    /** Per replica id, in id order: what {@code /api/replicas} and the metrics show. */
    public synchronized Map<String, ReplicaLoad> loads() {
        Map<String, ReplicaLoad> out = new LinkedHashMap<>();
        ledgers.keySet().stream().sorted().forEach(id -> out.put(id, load(id)));
        return out;
    }

    public synchronized int size() {
        return sessions.size();
    }

    /** A replica left the pool: its residents must be admitted afresh elsewhere. */
    public synchronized void forgetReplica(String replica) {
        List<String> gone = sessions.values().stream().filter(r -> r.replica.equals(replica)).map(r -> r.session).toList();
        gone.forEach(s -> {
            sessions.remove(s);
            idleOldestFirst.remove(s);
        });
        ledgers.remove(replica);
    }

    private ReplicaLedger ledger(String replica) {
        return ledgers.computeIfAbsent(replica, id -> new ReplicaLedger());
    }
}
