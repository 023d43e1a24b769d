package io.lmwarden.router.pool;

/** A replica as discovery sees it: a stable id (pod name), its base URL, and whether it may take new requests. */
public record DiscoveredReplica(String id, String url, boolean ready) {
}
