package io.lmwarden.sim.kvevents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

/**
 * vLLM's {@code KVEventsConfig} ({@code --kv-events-config} JSON, same keys and defaults), plus the simulator's choice of
 * wire encoding. Rank r of a server binds both endpoints' tcp ports offset by r, as vLLM's publisher does.
 *
 * @param replayEndpoint null = no replay socket
 * @param encoding       {@code map} (vLLM PR #42892 and later) or {@code array} (the older tagged arrays)
 * @param selfDescribingHostEvents host-tier events carry token ids, parent hash and group like GPU ones (vLLM's
 *                       {@code kv_connector_extra_config.self_describing_kv_events}, ≥ 0.24); otherwise hashes only
 */
public record KvEventsConfig(boolean enabled, String publisher, String endpoint, String replayEndpoint, int bufferSteps,
                             int hwm, int maxQueueSize, String topic, Encoding encoding, boolean selfDescribingHostEvents) {

    public enum Encoding { MAP, ARRAY }

    public static final KvEventsConfig DISABLED = new KvEventsConfig(false, "null", "tcp://*:5557", null, 10_000, 100_000,
            100_000, "", Encoding.MAP, false);
    private static final Set<String> KEYS = Set.of("enable_kv_cache_events", "publisher", "endpoint", "replay_endpoint",
            "buffer_steps", "hwm", "max_queue_size", "topic");

    public KvEventsConfig {
        if (bufferSteps < 1 || hwm < 0 || maxQueueSize < 1) {
            throw new IllegalArgumentException("kv-events-config: buffer_steps and max_queue_size must be positive, hwm >= 0");
        }
        if (!"zmq".equals(publisher) && !"null".equals(publisher)) {
            throw new IllegalArgumentException("kv-events-config: publisher must be \"zmq\" or \"null\", got \"" + publisher + "\"");
        }
    }

    /** True when a ZMQ publisher runs: events enabled and the publisher is zmq. */
    public boolean publishes() {
        return enabled && "zmq".equals(publisher);
    }

    public KvEventsConfig withEncoding(Encoding e) {
        return new KvEventsConfig(enabled, publisher, endpoint, replayEndpoint, bufferSteps, hwm, maxQueueSize, topic, e,
                selfDescribingHostEvents);
    }

    public KvEventsConfig withSelfDescribingHostEvents(boolean on) {
        return new KvEventsConfig(enabled, publisher, endpoint, replayEndpoint, bufferSteps, hwm, maxQueueSize, topic, encoding,
                on);
    }

    public static Encoding encoding(String name) {
        try {
            return Encoding.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("kv events encoding must be map or array, got '" + name + "'");
        }
    }

    /** Parses vLLM's JSON; unknown keys are an error, as vLLM's config validation makes them. */
    public static KvEventsConfig parse(String json) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("kv-events-config is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("kv-events-config must be a JSON object");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("kv-events-config: unknown key '" + key + "'; known: " + String.join(", ",
                        KEYS.stream().sorted().toList()));
            }
        }
        boolean enabled = root.path("enable_kv_cache_events").asBoolean(false);
        // vLLM: the publisher defaults to "zmq" when events are enabled and to "null" otherwise.
        String publisher = text(root, "publisher", enabled ? "zmq" : "null");
        return new KvEventsConfig(enabled, publisher, text(root, "endpoint", "tcp://*:5557"),
                text(root, "replay_endpoint", null), integer(root, "buffer_steps", 10_000), integer(root, "hwm", 100_000),
                integer(root, "max_queue_size", 100_000), text(root, "topic", ""), Encoding.MAP, false);
    }

    /**
     * vLLM's {@code offset_endpoint_port}: rank r > 0 adds r to a tcp endpoint's port; {@code inproc} endpoints get a
     * {@code _dp<r>} suffix. Port 0 stays 0 (0 + r would name a fixed, privileged
     * port): every rank binds an ephemeral port of its own and reports it ({@link ZmqKvEventPublisher#port()}).
     */
    public static String forRank(String endpoint, int rank) {
        if (endpoint == null || rank == 0) {
            return endpoint;
        }
        if (endpoint.contains("inproc")) {
            return endpoint + "_dp" + rank;
        }
        int colon = endpoint.lastIndexOf(':');
        if (!endpoint.contains("tcp") || colon < 0) {
            throw new IllegalArgumentException("Invalid endpoint: must contain 'inproc' or 'tcp': " + endpoint);
        }
        int port = Integer.parseInt(endpoint.substring(colon + 1));
        return port == 0 ? endpoint : endpoint.substring(0, colon + 1) + (port + rank);
    }

    /** A tcp endpoint's port ({@code tcp://*:5557} → 5557); 0 for null and other transports. */
    static int tcpPort(String endpoint) {
        if (endpoint == null || !endpoint.startsWith("tcp://")) {
            return 0;
        }
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    private static String text(JsonNode root, String key, String fallback) {
        JsonNode v = root.get(key);
        return v == null || v.isNull() ? fallback : v.asText();
    }

    private static int integer(JsonNode root, String key, int fallback) {
        JsonNode v = root.get(key);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.canConvertToInt()) {
            throw new IllegalArgumentException("kv-events-config: " + key + " must be an integer");
        }
        return v.asInt();
    }
}
