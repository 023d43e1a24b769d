package io.lmwarden.router.placement.admission;

import java.util.LinkedHashMap;
import java.util.Map;

/** Per-session memory that forgets the least recently used sessions beyond a bound. Not thread-safe. */
final class BoundedSessions<V> extends LinkedHashMap<String, V> {

    /** Sessions remembered: at ~100 bytes each, a few MB. */
    static final int DEFAULT_BOUND = 65_536;

    private final int bound;

    BoundedSessions(int bound) {
        super(256, 0.75f, true);
        this.bound = bound;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > bound;
    }
}
