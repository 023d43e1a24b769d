package io.lmwarden.router.cluster;

import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.pins.AffinityTable;
import org.infinispan.AdvancedCache;
import org.infinispan.commons.CacheException;
import org.infinispan.context.Flag;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachelistener.annotation.CacheEntriesEvicted;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryCreated;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryExpired;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryModified;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryRemoved;
import org.infinispan.notifications.cachelistener.event.CacheEntriesEvictedEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryCreatedEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryExpiredEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryModifiedEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryRemovedEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The pins shared by all routers: a replicated cache (every pod holds every pin, so reading one is
 * a local memory read) in front of which each pod keeps its own {@link AffinityTable} of the
 * sessions it served. A pinned step touches only that local table; the cluster is written when a
 * session is placed or moved, and refreshed in the background for sessions in use.
 *
 * <p>A pin race (two routers place the same new session at once) is settled by
 * {@code putIfAbsent}, which the key's primary owner applies one at a time: one write wins, the
 * loser gets the winner's value back and sends its request there. Re-placing a session whose home
 * left uses {@code replace(key, oldHome, newHome)} the same way. Both are the asynchronous calls: a
 * claim never holds the caller's thread (an event loop) while the peers acknowledge.
 *
 * <p>Idle expiry: a shared entry lives {@code idleTimeout} from its last write; each pod rewrites
 * (conditionally, so a move is never undone) the entries it touched since its last sweep, at most
 * once per sweep. An entry no pod touches for the idle timeout expires everywhere.
 */
public final class ClusteredPins implements SessionPins {

    private static final Logger LOG = Logger.getLogger(ClusteredPins.class.getName());
    private static final char SEPARATOR = '\u0001';

    private final AffinityTable local;
    private final AdvancedCache<String, String> shared;
    private final AdvancedCache<String, String> sharedNoReturn;
    private final long lifespanMillis;
    private final Set<String> touched = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> perReplica = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final AtomicLong racesLost = new AtomicLong();
    private final AtomicLong writeFailures = new AtomicLong();
    /** This router's claims under way, by key: each completes with the pin that holds. */
    private final Map<String, CompletableFuture<String>> claiming = new ConcurrentHashMap<>();

    ClusteredPins(AdvancedCache<String, String> shared, int maxEntries, Duration idleTimeout) {
        this.local = new AffinityTable(maxEntries, idleTimeout);
        this.shared = shared;
        this.sharedNoReturn = shared.withFlags(Flag.IGNORE_RETURN_VALUES);
        this.lifespanMillis = idleTimeout.toMillis();
    }

    /** Starts counting pins per replica: every change from now on, then the pins already there (learned on join). */
    void listen() {
        shared.addListener(new Counts());
        recount();
    }

    /**
     * Counts the pins per replica afresh from this member's copy. On join, and on every sweep: a
     * change that lands while counting may be counted twice or not at all, and the next sweep mends it.
     */
    void recount() {
        Map<String, Integer> counts = new HashMap<>();
        int n = 0;
        for (String replica : shared.withFlags(Flag.CACHE_MODE_LOCAL).values()) {
            counts.merge(replica, 1, Integer::sum);
            n++;
        }
        for (Map.Entry<String, AtomicInteger> e : perReplica.entrySet()) {
            e.getValue().set(counts.getOrDefault(e.getKey(), 0));
        }
        counts.forEach((replica, c) -> perReplica.computeIfAbsent(replica, r -> new AtomicInteger()).set(c));
        total.set(n);
    }

    static String key(String model, String sessionKey) {
        return model + SEPARATOR + sessionKey;
    }

    @Override
    public Optional<String> lookup(String model, String sessionKey, long nowNanos) {
        Optional<String> home = local.lookup(model, sessionKey, nowNanos);
        String k = key(model, sessionKey);
        if (home.isEmpty()) {
            // Pinned by another router, or by this one before its local entry went idle: a local read.
            String v = shared.get(k);
            if (v == null) {
                return Optional.empty();
            }
            local.pin(model, sessionKey, v, nowNanos);
            home = Optional.of(v);
        }
        touched.add(k);
        return home;
    }

    /**
     * Settles the pin without waiting for the peers: the writes are Infinispan's asynchronous ones, and the
     * returned stage completes (on a cluster thread) once the key's primary owner decided and every member
     * applied it. A synchronous write would hold the caller, an event loop, for a round trip to every peer,
     * and up to the remote timeout when one is slow or cut off. A second claim of the same session on this
     * router while the first is under way joins it rather than race it.
     */
    @Override
    public CompletionStage<String> claim(String model, String sessionKey, Optional<String> previous, String replicaId, long nowNanos) {
        String k = key(model, sessionKey);
        CompletableFuture<String> settled = new CompletableFuture<>();
        CompletableFuture<String> under = claiming.putIfAbsent(k, settled);
        if (under != null) {
            return under.copy();
        }
        write(k, previous, replicaId).handle((written, failure) -> {
            String winner = written;
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                if (!(cause instanceof CacheException)) {
                    throw new CompletionException(cause);
                }
                // No quorum or a peer timed out: keep serving with a pin of our own; the merge settles it.
                writeFailures.incrementAndGet();
                LOG.warning(() -> "shared pin write failed, pinned on this router only: " + cause.getMessage());
                winner = replicaId;
            }
            if (!winner.equals(replicaId)) {
                racesLost.incrementAndGet();
            }
            local.pin(model, sessionKey, winner, nowNanos);
            touched.remove(k);
            return winner;
        }).whenComplete((winner, failure) -> {
            // Out of the table before it completes: whatever runs on its completion sees the claim over.
            claiming.remove(k, settled);
            if (failure != null) {
                settled.completeExceptionally(failure);
            } else {
                settled.complete(winner);
            }
        });
        return settled.copy();
    }

    /** The pin that holds after trying to make it {@code replicaId}: ours, or the one another router wrote first. */
    private CompletableFuture<String> write(String k, Optional<String> previous, String replicaId) {
        try {
            CompletableFuture<Boolean> replaced = previous.isPresent()
                    ? shared.replaceAsync(k, previous.get(), replicaId, lifespanMillis, TimeUnit.MILLISECONDS)
                    : CompletableFuture.completedFuture(false);
            return replaced.thenCompose(won -> won ? CompletableFuture.completedFuture(replicaId)
                    : shared.putIfAbsentAsync(k, replicaId, lifespanMillis, TimeUnit.MILLISECONDS).thenCompose(existing -> {
                        String winner = existing == null || existing.equals(previous.orElse(null)) ? replicaId : existing;
                        if (existing != null && winner.equals(replicaId)) {
                            // The stale home came back between our read and the replace: take it over.
                            return sharedNoReturn.putAsync(k, replicaId, lifespanMillis, TimeUnit.MILLISECONDS).thenApply(v -> replicaId);
                        }
                        return CompletableFuture.completedFuture(winner);
                    }));
        } catch (RuntimeException e) {
            // A cache that refuses at once (stopping, no members) fails the claim the same way as one that fails later.
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void pin(String model, String sessionKey, String replicaId, long nowNanos) {
        local.pin(model, sessionKey, replicaId, nowNanos);
        String k = key(model, sessionKey);
        touched.remove(k);
        CompletableFuture<String> under = claiming.get(k);
        if (under == null) {
            put(k, replicaId);
        } else {
            // A move while this router's claim is under way comes after it, here and in the cluster: never undone by it.
            under.whenComplete((winner, failure) -> {
                local.pin(model, sessionKey, replicaId, nowNanos);
                put(k, replicaId);
            });
        }
    }

    /** A move: the last writer wins, and the caller does not wait for the peers. */
    private void put(String k, String replicaId) {
        sharedNoReturn.putAsync(k, replicaId, lifespanMillis, TimeUnit.MILLISECONDS).exceptionally(e -> {
            writeFailures.incrementAndGet();
            return null;
        });
    }

    @Override
    public int expireIdle(long nowNanos) {
        int expired = local.expireIdle(nowNanos);
        recount();
        List<String> refresh = new ArrayList<>(touched);
        touched.removeAll(refresh);
        for (String k : refresh) {
            String v = shared.get(k);
            if (v != null) {
                sharedNoReturn.replaceAsync(k, v, v, lifespanMillis, TimeUnit.MILLISECONDS).exceptionally(e -> {
                    writeFailures.incrementAndGet();
                    return false;
                });
            }
        }
        return expired;
    }

    @Override
    public int release(String replicaId) {
        int released = local.release(replicaId);
        // Every pod sees the replica go and removes the same entries; the conditional remove makes that harmless.
        for (Map.Entry<String, String> e : shared.withFlags(Flag.CACHE_MODE_LOCAL).entrySet()) {
            if (replicaId.equals(e.getValue())) {
                sharedNoReturn.removeAsync(e.getKey(), replicaId);
            }
        }
        return released;
    }

    @Override
    public Optional<String> peek(String model, String sessionKey) {
        Optional<String> v = local.peek(model, sessionKey);
        return v.isPresent() ? v : Optional.ofNullable(shared.get(key(model, sessionKey)));
    }

    @Override
    public int size() {
        return total.get();
    }

    @Override
    public int sessionsOn(String replicaId) {
        AtomicInteger n = perReplica.get(replicaId);
        return n == null ? 0 : n.get();
    }

    @Override
    public Map<String, Integer> sessionsPerReplica() {
        Map<String, Integer> m = new HashMap<>();
        perReplica.forEach((r, n) -> {
            if (n.get() > 0) {
                m.put(r, n.get());
            }
        });
        return m;
    }

    /** Sessions this router served recently (its local table). */
    public int localSize() {
        return local.size();
    }

    /** The shared cache itself, for tests in this package that make a member slow to apply a write. */
    AdvancedCache<String, String> cache() {
        return shared;
    }

    public long racesLost() {
        return racesLost.get();
    }

    public long writeFailures() {
        return writeFailures.get();
    }

    private void counted(String replica, int delta) {
        if (replica != null) {
            perReplica.computeIfAbsent(replica, r -> new AtomicInteger()).addAndGet(delta);
            total.addAndGet(delta);
        }
    }

    /** Another router's change to a session this one holds locally replaces or drops the local entry. */
    private void followRemote(String k, String replica) {
        int sep = k.indexOf(SEPARATOR);
        if (sep < 0) {
            return;
        }
        String model = k.substring(0, sep);
        String session = k.substring(sep + 1);
        Optional<String> mine = local.peek(model, session);
        if (mine.isEmpty() || mine.get().equals(replica)) {
            return;
        }
        if (replica == null) {
            local.forget(model, session);
        } else {
            local.repoint(model, session, replica);
        }
    }

    /**
     * Keeps the per-replica counts and the local table in step with the shared cache. Synchronous,
     * so that when a write returns on the router that made it, every member has applied it here too.
     */
    @Listener
    public final class Counts {

        @CacheEntryCreated
        public void created(CacheEntryCreatedEvent<String, String> e) {
            if (!e.isPre()) {
                counted(e.getValue(), 1);
                followRemote(e.getKey(), e.getValue());
            }
        }

        @CacheEntryModified
        public void modified(CacheEntryModifiedEvent<String, String> e) {
            if (e.isPre() || e.isCreated()) {
                return;
            }
            String old = e.getOldValue();
            String now = e.getNewValue();
            if (old == null) {
                counted(now, 1);
            } else if (!old.equals(now)) {
                counted(old, -1);
                counted(now, 1);
            }
            if (!e.isOriginLocal()) {
                followRemote(e.getKey(), now);
            }
        }

        @CacheEntryRemoved
        public void removed(CacheEntryRemovedEvent<String, String> e) {
            if (!e.isPre()) {
                counted(e.getOldValue(), -1);
                followRemote(e.getKey(), null);
            }
        }

        @CacheEntryExpired
        public void expired(CacheEntryExpiredEvent<String, String> e) {
            counted(e.getValue(), -1);
            followRemote(e.getKey(), null);
        }

        @CacheEntriesEvicted
        public void evicted(CacheEntriesEvictedEvent<String, String> e) {
            e.getEntries().values().forEach(v -> counted(v, -1));
        }
    }
}
