package io.lmwarden.router.pool;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fixed list of replica URLs. An entry is {@code URL} (id = host:port) or {@code id=URL}. Whether
 * a listed replica is healthy is left to the metrics scraper and to failed requests.
 */
public final class StaticReplicaDiscovery implements ReplicaDiscovery {

    private final List<DiscoveredReplica> replicas;

    public StaticReplicaDiscovery(List<String> entries) {
        List<DiscoveredReplica> list = new ArrayList<>();
        for (String entry : entries) {
            list.add(parse(entry));
        }
        this.replicas = List.copyOf(list);
    }

    static DiscoveredReplica parse(String entry) {
        String id = null;
        String url = entry.trim();
        int eq = url.indexOf('=');
        if (eq > 0 && !url.substring(0, eq).contains("/")) {
            id = url.substring(0, eq).trim();
            url = url.substring(eq + 1).trim();
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("replica '" + entry + "' is not a URL: " + e.getMessage());
        }
        if (uri.getHost() == null || uri.getScheme() == null || !uri.getScheme().startsWith("http")) {
            throw new IllegalArgumentException("replica '" + entry + "' must look like http://host:port");
        }
        int port = uri.getPort() > 0 ? uri.getPort() : (uri.getScheme().equals("https") ? 443 : 80);
        String base = uri.getScheme() + "://" + uri.getHost() + ":" + port;
        return new DiscoveredReplica(id != null ? id : uri.getHost() + ":" + port, base, true);
    }

    @Override
    public void start(Consumer<List<DiscoveredReplica>> onChange) {
        onChange.accept(replicas);
    }

    @Override
    public String describe() {
        return "static(" + replicas.size() + ")";
    }

    @Override
    public void close() {
    }
}
