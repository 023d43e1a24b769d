package io.lmwarden.router.proxy;

import io.vertx.core.MultiMap;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/** Copies headers between hops, leaving out those that belong to one connection (RFC 9110 §7.6.1). */
public final class HopByHopHeaders {

    private static final Set<String> HOP_BY_HOP = names("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection");

    private HopByHopHeaders() {
    }

    /** Header names matched regardless of case, without lower-casing each header of each request. */
    public static Set<String> names(String... names) {
        TreeSet<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        Collections.addAll(set, names);
        return Collections.unmodifiableSet(set);
    }

    /**
     * @param alsoDrop further headers this hop sets itself, from {@link #names} (e.g. host and content-length)
     */
    public static void copy(MultiMap from, MultiMap to, Set<String> alsoDrop) {
        String connection = from.get("connection");
        Set<String> named = connection == null ? Set.of() : names(connection.replace(" ", "").split(","));
        from.forEach(h -> {
            String name = h.getKey();
            if (!HOP_BY_HOP.contains(name) && !named.contains(name) && !alsoDrop.contains(name)) {
                to.add(name, h.getValue());
            }
        });
    }
}
