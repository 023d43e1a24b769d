package io.lmwarden.router.pool;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fixed list of endpoint URLs. An entry is {@code URL} (id = host:port) or {@code id=URL}, optionally
 * followed by {@code #ranks=N} for a {@code vllm serve --data-parallel-size N} server (without it the ranks
 * are learned from the endpoint's metrics). Whether a listed endpoint is healthy is left to the metrics
 * scraper and to failed requests.
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
        int ranks = 0;
        int hash = url.indexOf('#');
        if (hash >= 0) {
            ranks = parseRanks(entry, url.substring(hash + 1).trim());
            url = url.substring(0, hash).trim();
        }
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
        return new DiscoveredReplica(id != null ? id : uri.getHost() + ":" + port, base, true, ranks);
    }

    private static int parseRanks(String entry, String fragment) {
        String value = fragment.startsWith("ranks=") ? fragment.substring("ranks=".length()).trim() : null;
        try {
            int n = value == null ? -1 : Integer.parseInt(value);
            if (n >= 1 && n <= 1024) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("replica '" + entry + "': after '#' write ranks=N (the server's"
                + " --data-parallel-size, 1..1024), e.g. http://host:8000#ranks=4");
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
