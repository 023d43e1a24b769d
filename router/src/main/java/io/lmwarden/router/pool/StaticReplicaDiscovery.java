package io.lmwarden.router.pool;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fixed list of endpoint URLs. An entry is {@code URL} (id = host:port) or {@code id=URL}, optionally
 * followed by {@code #} and {@code &}-separated fields: {@code ranks=N} for a {@code vllm serve --data-parallel-size N}
 * server (without it the ranks are learned from the endpoint's metrics), {@code kv=PORT} where its rank 0 publishes
 * vLLM's KV events and {@code replay=PORT} its replay socket (rank r on PORT + r, as vLLM binds them), e.g.
 * {@code http://10.0.0.5:8000#kv=5557&replay=5558}. Whether a listed endpoint is healthy is left to the metrics
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
        int kv = 0;
        int replay = 0;
        int hash = url.indexOf('#');
        if (hash >= 0) {
            for (String field : url.substring(hash + 1).split("&")) {
                String f = field.trim();
                if (f.startsWith("kv=")) {
                    kv = parsePort(entry, f);
                } else if (f.startsWith("replay=")) {
                    replay = parsePort(entry, f);
                } else {
                    ranks = parseRanks(entry, f);
                }
            }
            if (replay > 0 && kv == 0) {
                throw new IllegalArgumentException("replica '" + entry + "': replay=PORT needs kv=PORT too (the events port)");
            }
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
        return new DiscoveredReplica(id != null ? id : uri.getHost() + ":" + port, base, true, ranks, false, kv, replay);
    }

    private static int parsePort(String entry, String field) {
        String value = field.substring(field.indexOf('=') + 1).trim();
        try {
            int p = Integer.parseInt(value);
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("replica '" + entry + "': " + field + " is no port (1..65535), e.g."
                + " http://host:8000#kv=5557&replay=5558");
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
                + " --data-parallel-size, 1..1024), kv=PORT or replay=PORT, joined by '&', e.g. http://host:8000#ranks=4&kv=5557");
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
