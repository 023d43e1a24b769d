package io.lmwarden.router.placement.lora;

import io.lmwarden.router.placement.reservation.PlacementFeedback;
import io.lmwarden.router.placement.reservation.Reservation;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Which sessions each replica has been working for lately, and under which LoRA adapter: the router's own picture of
 * the adapters a replica keeps busy, since vLLM publishes no residency. A session counts on the replica its last step was
 * sent to for {@code window} after that step: long enough to bridge an agent's tool pause (real Claude Code sessions:
 * pause before the next call p50 10 s, p90 162 s; ../shared/WORKLOAD.md), so a session thinking between steps still holds
 * its adapter's claim on a slot, and short enough that finished sessions stop counting. Sessions of the base model count
 * too: they are the replica's load, against which a popular adapter's share is judged.
 *
 * <p>Told by the placement feedback seam ({@link #placed}, every attempt actually sent), read by placement
 * ({@link AdapterPlacement}) and the API. One lock; entries per replica are bounded by its sessions in the window.
 */
public final class AdapterActivity implements PlacementFeedback {

    /** How long after its last step a session counts on its replica, in workload time (see the class comment). */
    public static final java.time.Duration WINDOW_WORKLOAD = java.time.Duration.ofSeconds(180);

    /** What a replica is busy with: sessions seen in the window, and those of each adapter among them. */
    public record ReplicaAdapters(int sessions, Map<String, Integer> adapterSessions) {

        public static final ReplicaAdapters IDLE = new ReplicaAdapters(0, Map.of());

        public ReplicaAdapters {
            adapterSessions = Map.copyOf(adapterSessions);
        }

        /** Distinct adapters this replica is working for: the slots its batches need. */
        public int adapters() {
            return adapterSessions.size();
        }

        public boolean runs(String adapter) {
            return adapterSessions.containsKey(adapter);
        }
    }

    private static final class Seen {
        final String adapter;
        long lastNanos;

        Seen(String adapter, long lastNanos) {
            this.adapter = adapter;
            this.lastNanos = lastNanos;
        }
    }

    private final Predicate<String> isAdapter;
    private final long windowNanos;
    /** Per replica: session (model key + session key) → its adapter (null for the base model) and last step; oldest first. */
    private final Map<String, LinkedHashMap<String, Seen>> byReplica = new HashMap<>();

    /**
     * @param isAdapter whether a model key is a LoRA adapter's ({@code ReplicaPool.isAdapter})
     * @param windowNanos how long after its last step a session counts on a replica
     */
    public AdapterActivity(Predicate<String> isAdapter, long windowNanos) {
        this.isAdapter = isAdapter;
        this.windowNanos = windowNanos;
    }

    @Override
    public void placed(Reservation r) {
        String session = r.facts().sessionKey().value();
        if (session == null || session.isEmpty()) {
            return;
        }
        String model = r.facts().modelKey();
        seen(r.replicaId(), model, session, System.nanoTime());
    }

    /** A step of {@code session} (of model key {@code model}) was sent to {@code replicaId} at {@code nowNanos}. */
    public synchronized void seen(String replicaId, String model, String session, long nowNanos) {
        String key = model + '\u0001' + session;
        // A session lives on one replica: a step elsewhere (a move) ends its count on the old one.
        for (Map.Entry<String, LinkedHashMap<String, Seen>> e : byReplica.entrySet()) {
            if (!e.getKey().equals(replicaId)) {
                e.getValue().remove(key);
            }
        }
        LinkedHashMap<String, Seen> sessions = byReplica.computeIfAbsent(replicaId, id -> new LinkedHashMap<>(16, 0.75f, true));
        Seen s = sessions.get(key);
        if (s == null) {
            sessions.put(key, new Seen(isAdapter.test(model) ? model : null, nowNanos));
        } else {
            s.lastNanos = nowNanos;
        }
        expire(sessions, nowNanos);
    }

    /** What {@code replicaId} has been busy with in the window before {@code nowNanos}. */
    public synchronized ReplicaAdapters on(String replicaId, long nowNanos) {
        LinkedHashMap<String, Seen> sessions = byReplica.get(replicaId);
        if (sessions == null) {
            return ReplicaAdapters.IDLE;
        }
        expire(sessions, nowNanos);
        Map<String, Integer> adapters = new TreeMap<>();
        for (Seen s : sessions.values()) {
            if (s.adapter != null) {
                adapters.merge(s.adapter, 1, Integer::sum);
            }
        }
        return new ReplicaAdapters(sessions.size(), adapters);
    }

    /** The replica left the pool: what it was busy with is gone with it. */
    public synchronized void forget(String replicaId) {
        byReplica.remove(replicaId);
    }

    private void expire(LinkedHashMap<String, Seen> sessions, long nowNanos) {
        // Access order: the least recently seen first, so the walk stops at the first session still in the window.
        Iterator<Seen> it = sessions.values().iterator();
        while (it.hasNext()) {
            if (nowNanos - it.next().lastNanos <= windowNanos) {
                break;
            }
            it.remove();
        }
    }
}
