package io.lmwarden.router.kvevents;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The router's cache views, one per engine (replica or data-parallel rank) whose publisher it follows, by replica id.
 * {@link #follow} makes the subscriptions match the publishers discovery names right now (a changed address or port
 * starts the view over; a publisher no longer named is dropped). Placement asks {@link #live}: a view it may trust
 * instead of its estimates, or none. Switched off ({@link #off()}), nothing is followed and every answer is "none".
 */
public final class EngineCacheViews implements AutoCloseable {

    private final KvEventSubscriber subscriber; // null when off
    private final Map<String, KvEventEndpoint> followed = new HashMap<>();
    private volatile boolean followsAny;

    private EngineCacheViews(KvEventSubscriber subscriber) {
        this.subscriber = subscriber;
    }

    public static EngineCacheViews off() {
        return new EngineCacheViews(null);
    }

    public static EngineCacheViews start(KvEventsSettings settings) {
        return new EngineCacheViews(KvEventSubscriber.start(settings));
    }

    public boolean enabled() {
        return subscriber != null;
    }

    /** Follows exactly these publishers (by {@link KvEventEndpoint#viewId()}). */
    public synchronized void follow(List<KvEventEndpoint> wanted) {
        if (subscriber == null) {
            return;
        }
        Map<String, KvEventEndpoint> next = new HashMap<>();
        wanted.forEach(e -> next.put(e.viewId(), e));
        followed.keySet().removeIf(id -> {
            if (!next.containsKey(id)) {
                subscriber.unsubscribe(id);
                return true;
            }
            return false;
        });
        next.forEach((id, e) -> {
            if (!e.equals(followed.get(id))) {
                subscriber.subscribe(e);
                followed.put(id, e);
            }
        });
        followsAny = !followed.isEmpty();
    }

    /** Whether any publisher is followed now: only then is it worth asking the engines for token ids. */
    public boolean followsAny() {
        return followsAny;
    }

    /** The replica's view, whatever its state (for the admin API and meters). */
    public Optional<ReplicaCacheView> view(String replicaId) {
        return subscriber == null ? Optional.empty() : subscriber.view(replicaId);
    }

    /** The replica's view when placement may rely on it ({@link ViewState#LIVE}); empty means: use the estimates. */
    public Optional<ReplicaCacheView> live(String replicaId) {
        return view(replicaId).filter(v -> v.state() == ViewState.LIVE);
    }

    public List<ReplicaCacheView> all() {
        return subscriber == null ? List.of() : List.copyOf(subscriber.views());
    }

    @Override
    public void close() {
        if (subscriber != null) {
            subscriber.close();
        }
    }
}
