package io.lmwarden.router.placement.lora;

import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.placement.lora.AdapterActivity.ReplicaAdapters;
import io.lmwarden.router.placement.pins.NewSessionFilter;
import io.lmwarden.router.pool.ReplicaView;

import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.pool.ServedModels.LoraCard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Where a new session of a LoRA adapter may go, before the policy picks among those replicas by its own rule (expected
 * TTFT, load). vLLM runs at most {@code max_loras} distinct adapters in one batch and skips, step after step, a waiting
 * request whose adapter finds no slot; an adapter new to a replica is loaded first. So a session goes, in this order:
 * <ol>
 *   <li>to a replica already working for its adapter ({@link AdapterActivity}): no new slot, its adapter's shared prefix
 *       warm — unless every such replica carries more than its share of the pool's sessions (the adapter is popular);</li>
 *   <li>then to a replica with a slot its adapters leave free: the adapter spreads to one more replica;</li>
 *   <li>then, no slot free anywhere, back to the replicas already working for it if there are any (a full slot set
 *       elsewhere costs more than an unequal load), else to the replicas working for the fewest adapters.</li>
 * </ol>
 * A popular adapter thus spreads over as many replicas as its sessions need, one replica at a time, and a rare one stays
 * on one. Base-model requests and requests without a session are left to the policy: they never wait for a slot.
 */
public final class AdapterPlacement implements NewSessionFilter {

    /**
     * A replica carries more than its share when it has this many sessions more than the mean of the pool's ready
     * replicas (or this share of the mean, whichever is larger): small imbalances are what the policy's own balancing evens out with base-model
     * sessions, and are not worth a slot elsewhere.
     */
    static final int CROWDED_MIN_EXCESS = 2;
    static final double CROWDED_SHARE_EXCESS = 0.25;

    private final AdapterActivity activity;
    private final Predicate<String> isAdapter;
    private final LoraSlots slots;
    private final boolean enabled;
    private final AdapterLoader loader;
    private final Function<String, Optional<LoraCard>> cards;

    /** Without runtime loading. */
    public AdapterPlacement(AdapterActivity activity, Predicate<String> isAdapter, LoraSlots slots, boolean enabled) {
        this(activity, isAdapter, slots, enabled, new AdapterLoader(false, endpoint -> { }), adapter -> Optional.empty());
    }

    /**
     * @param enabled off: every candidate stays (the A/B baseline)
     * @param loader  loads an adapter where no replica that lists it has room ({@code loadAdapters})
     * @param cards   an adapter's card (base model, path), as some replica lists it
     */
    public AdapterPlacement(AdapterActivity activity, Predicate<String> isAdapter, LoraSlots slots, boolean enabled,
                            AdapterLoader loader, Function<String, Optional<LoraCard>> cards) {
        this.activity = activity;
        this.isAdapter = isAdapter;
        this.slots = slots;
        this.enabled = enabled;
        this.loader = loader;
        this.cards = cards;
    }

    @Override
    public Choice choose(PlacementRequest request) {
        List<ReplicaView> all = request.candidates();
        String adapter = request.facts().modelKey();
        if (!enabled || !isAdapter.test(adapter)) {
            return new Choice(all, "");
        }
        // What every ready replica is busy with, read once: the candidates' slots, the pool's share, the room to load into.
        Map<String, ReplicaAdapters> seen = new HashMap<>();
        int sessions = 0;
        int ready = 0;
        for (ReplicaView r : request.pool().replicas()) {
            if (r.ready()) {
                ReplicaAdapters a = activity.on(r.id(), request.nowNanos());
                seen.put(r.id(), a);
                sessions += a.sessions();
                ready++;
            }
        }
        List<ReplicaAdapters> busy = new ArrayList<>(all.size());
        for (ReplicaView r : all) {
            ReplicaAdapters a = seen.get(r.id());
            busy.add(a != null ? a : activity.on(r.id(), request.nowNanos()));
        }
        // The share is the whole pool's: where only one replica lists the adapter, it is judged against the others too.
        double mean = (double) sessions / Math.max(1, ready);
        double crowded = mean + Math.max(CROWDED_MIN_EXCESS, CROWDED_SHARE_EXCESS * mean);
        List<ReplicaView> running = new ArrayList<>();
        List<ReplicaView> runningUncrowded = new ArrayList<>();
        List<ReplicaView> freeSlot = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            ReplicaView r = all.get(i);
            ReplicaAdapters a = busy.get(i);
            if (a.runs(adapter)) {
                running.add(r);
                if (a.sessions() < crowded) {
                    runningUncrowded.add(r);
                }
            } else if (a.adapters() < slots.of(r)) {
                freeSlot.add(r);
            }
        }
        if (!runningUncrowded.isEmpty()) {
            return new Choice(runningUncrowded, "adapter " + adapter + " runs on " + ids(runningUncrowded));
        }
        if (freeSlot.isEmpty()) {
            // No replica that lists the adapter has room for it: one that does not list it may take it, loaded now.
            loadWhereRoom(request, adapter, seen);
        } else {
            return new Choice(freeSlot, running.isEmpty()
                    ? "adapter " + adapter + " runs nowhere; a free adapter slot on " + ids(freeSlot)
                    : "adapter " + adapter + " runs on " + ids(running) + ", each past its share of sessions; a free adapter slot on "
                    + ids(freeSlot));
        }
        if (!running.isEmpty()) {
            return new Choice(running, "adapter " + adapter + " runs on " + ids(running) + "; no adapter slot free elsewhere");
        }
        int fewest = Integer.MAX_VALUE;
        for (ReplicaAdapters a : busy) {
            fewest = Math.min(fewest, a.adapters());
        }
        List<ReplicaView> leastContended = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (busy.get(i).adapters() == fewest) {
                leastContended.add(all.get(i));
            }
        }
        return new Choice(leastContended, "no adapter slot free; fewest adapters (" + fewest + ") on " + ids(leastContended));
    }

    /**
     * Loads the adapter on the least loaded ready replica that serves its base model, does not list it, and has an
     * adapter slot free; sessions that come once its {@code /v1/models} lists it find it there. This session is placed
     * now, among the replicas that list it.
     */
    private void loadWhereRoom(PlacementRequest request, String adapter, Map<String, ReplicaAdapters> seen) {
        Optional<LoraCard> card = cards.apply(adapter);
        if (card.isEmpty()) {
            return;
        }
        List<ReplicaView> room = new ArrayList<>();
        for (ReplicaView r : request.pool().replicas()) {
            if (r.ready() && r.servedModels().known() && !r.servedModels().serves(adapter)
                    && r.servedModels().serves(card.get().parent()) && loader.mayLoad(r, adapter, request.nowNanos())
                    && seen.get(r.id()).adapters() < slots.of(r)) {
                room.add(r);
            }
        }
        if (!room.isEmpty()) {
            loader.load(LoadOrder.least(room, LoadOrder.FOR_NEW_SESSION), adapter, card.get(), request.nowNanos());
        }
    }

    @Override
    public void placed(PlacementRequest request, ReplicaView replica) {
        String session = request.facts().sessionKey().value();
        if (session != null && !session.isEmpty()) {
            activity.seen(replica.id(), request.facts().modelKey(), session, request.nowNanos());
        }
    }

    private static String ids(List<ReplicaView> replicas) {
        StringBuilder sb = new StringBuilder();
        for (ReplicaView r : replicas) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(r.id());
        }
        return sb.toString();
    }
}
