package io.lmwarden.router.proxy;

import io.vertx.core.MultiMap;

import java.util.Locale;
import java.util.Set;

/** Copies headers between hops, leaving out those that belong to one connection (RFC 9110 §7.6.1). */
public final class HopByHopHeaders {

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection");

    private HopByHopHeaders() {
    }

    /**
     * @param alsoDrop further headers this hop sets itself (lower case), e.g. host and content-length
     */
    public static void copy(MultiMap from, MultiMap to, Set<String> alsoDrop) {
        String connection = from.get("connection");
        Set<String> named = connection == null ? Set.of()
                : Set.of(connection.toLowerCase(Locale.ROOT).replace(" ", "").split(","));
        from.forEach(h -> {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (!HOP_BY_HOP.contains(name) && !named.contains(name) && !alsoDrop.contains(name)) {
                to.add(h.getKey(), h.getValue());
            }
        });
    }
}
