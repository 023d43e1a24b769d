package io.lmwarden.router.pool;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * A replica's base URL taken apart once, when discovery sets it: the proxy sends every request with
 * these parts instead of an absolute URI, which Vert.x would parse into a {@code java.net.URL} per request.
 *
 * @param pathPrefix the base URL's path ("" for {@code http://host:port}), put before each request's own
 */
public record ReplicaAddress(String host, int port, boolean ssl, String pathPrefix) {

    /** The parts of an {@code http} or {@code https} URL with a host, or null for anything else (sent as it is, to fail there). */
    public static ReplicaAddress parse(String url) {
        try {
            URI u = new URI(url);
            boolean ssl = "https".equalsIgnoreCase(u.getScheme());
            if (!ssl && !"http".equalsIgnoreCase(u.getScheme()) || u.getHost() == null || u.getRawQuery() != null) {
                return null;
            }
            int port = u.getPort() >= 0 ? u.getPort() : ssl ? 443 : 80;
            return new ReplicaAddress(u.getHost(), port, ssl, u.getRawPath() == null ? "" : u.getRawPath());
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
