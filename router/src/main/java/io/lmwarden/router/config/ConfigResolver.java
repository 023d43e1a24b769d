package io.lmwarden.router.config;

import io.lmwarden.common.Durations;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Merges the three sources of settings with precedence flag &gt; environment &gt; YAML file &gt; default,
 * and turns the winning strings into a validated {@link RouterConfig}.
 */
public final class ConfigResolver {

    private ConfigResolver() {
    }

    /**
     * @param flags values given on the command line (only those given)
     * @param env   the process environment (only {@code LMW_*} keys are read)
     * @param file  values from the YAML file, by YAML key
     */
    public static RouterConfig resolve(Map<RouterOption, String> flags, Map<String, String> env, Map<String, String> file) {
        Map<RouterOption, String> v = new EnumMap<>(RouterOption.class);
        for (RouterOption o : RouterOption.values()) {
            String value = o.defaultValue();
            if (file.containsKey(o.key())) {
                value = file.get(o.key());
            }
            if (env.containsKey(o.env())) {
                value = env.get(o.env());
            }
            if (flags.containsKey(o)) {
                value = flags.get(o);
            }
            v.put(o, value == null ? "" : value.trim());
        }
        try {
            return new RouterConfig(
                    Integer.parseInt(v.get(RouterOption.PORT)),
                    v.get(RouterOption.HOST),
                    splitList(v.get(RouterOption.REPLICAS)),
                    optional(v.get(RouterOption.K8S_SERVICE)),
                    optional(v.get(RouterOption.NAMESPACE)),
                    Integer.parseInt(v.get(RouterOption.SIMULATE)),
                    v.get(RouterOption.SIM_PROFILE),
                    v.get(RouterOption.SIM_MODEL),
                    Double.parseDouble(v.get(RouterOption.TIME_SCALE)),
                    v.get(RouterOption.POLICY),
                    SpillThreshold.parse(v.get(RouterOption.SPILL_THRESHOLD)),
                    parseBoolean(RouterOption.AFFINITY, v.get(RouterOption.AFFINITY)),
                    Integer.parseInt(v.get(RouterOption.MAX_NUM_SEQS)),
                    Double.parseDouble(v.get(RouterOption.PREFILL_MS_PER_TOKEN)),
                    parseBoolean(RouterOption.ADMISSION, v.get(RouterOption.ADMISSION)),
                    Double.parseDouble(v.get(RouterOption.KV_BUDGET)),
                    Durations.parse(v.get(RouterOption.RESIDENCY_IDLE)),
                    Durations.parse(v.get(RouterOption.RESIDENCY_SLICE)),
                    Integer.parseInt(v.get(RouterOption.QUEUE_MAX)),
                    Durations.parse(v.get(RouterOption.QUEUE_TIMEOUT)),
                    Durations.parse(v.get(RouterOption.QUEUE_KEEP_ALIVE)),
                    Durations.parse(v.get(RouterOption.SESSION_IDLE_TIMEOUT)),
                    Integer.parseInt(v.get(RouterOption.AFFINITY_MAX_ENTRIES)),
                    Durations.parse(v.get(RouterOption.SCRAPE_INTERVAL)),
                    Durations.parse(v.get(RouterOption.METRICS_STALE_AFTER)),
                    ByteSizes.parse(v.get(RouterOption.BODY_LIMIT)),
                    Durations.parse(v.get(RouterOption.CONNECT_TIMEOUT)),
                    Durations.parse(v.get(RouterOption.STREAM_IDLE_TIMEOUT)),
                    Durations.parse(v.get(RouterOption.SHUTDOWN_GRACE)),
                    Integer.parseInt(v.get(RouterOption.MAX_CONNECTIONS_PER_REPLICA)),
                    Durations.parse(v.get(RouterOption.REPLICA_QUEUE_TIMEOUT)),
                    Durations.parse(v.get(RouterOption.HEALTH_TIMEOUT)),
                    Integer.parseInt(v.get(RouterOption.MAX_CLIENT_CONNECTIONS)),
                    Durations.parse(v.get(RouterOption.BODY_TIMEOUT)),
                    Durations.parse(v.get(RouterOption.CLIENT_IDLE_TIMEOUT)),
                    Durations.parse(v.get(RouterOption.HEADER_TIMEOUT)),
                    Integer.parseInt(v.get(RouterOption.RETRY_ATTEMPTS)),
                    Durations.parse(v.get(RouterOption.RETRY_BUDGET)),
                    v.get(RouterOption.ADMIN_PORT).isBlank() ? OptionalInt.empty()
                            : OptionalInt.of(Integer.parseInt(v.get(RouterOption.ADMIN_PORT))),
                    optional(v.get(RouterOption.ADMIN_TOKEN)),
                    optional(v.get(RouterOption.TENANT_HEADER)),
                    parseBoolean(RouterOption.TENANT_FROM_API_KEY, v.get(RouterOption.TENANT_FROM_API_KEY)),
                    optional(v.get(RouterOption.TENANT_SECRET)),
                    parseLogFormat(v.get(RouterOption.LOG_FORMAT)),
                    v.get(RouterOption.TRANSPORT),
                    new ClusterSettings(ClusterSettings.parseDiscovery(v.get(RouterOption.CLUSTER)), v.get(RouterOption.CLUSTER_BIND),
                            Integer.parseInt(v.get(RouterOption.CLUSTER_PORT)), v.get(RouterOption.CLUSTER_NAME)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a numeric setting is not a number: " + e.getMessage(), e);
        }
    }

    /** Reads a YAML config file into YAML-key → string; unknown keys are an error, so typos do not pass silently. */
    public static Map<String, String> readYaml(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> values = new HashMap<>();
        if (root == null || root.isMissingNode() || root.isNull()) {
            return values;
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException("config file " + file + " must be a YAML mapping of setting: value");
        }
        Set<String> known = Arrays.stream(RouterOption.values()).map(RouterOption::key).collect(Collectors.toSet());
        Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (!known.contains(f.getKey())) {
                throw new IllegalArgumentException("unknown setting '" + f.getKey() + "' in " + file + "; known: "
                        + Arrays.stream(RouterOption.values()).map(RouterOption::key).collect(Collectors.joining(", ")));
            }
            JsonNode n = f.getValue();
            if (n.isArray()) {
                List<String> items = new ArrayList<>();
                n.forEach(i -> items.add(i.asText()));
                values.put(f.getKey(), String.join(",", items));
            } else {
                values.put(f.getKey(), n.isNull() ? "" : n.asText());
            }
        }
        return values;
    }

    private static List<String> splitList(String s) {
        if (s.isBlank()) {
            return List.of();
        }
        return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    private static Optional<String> optional(String s) {
        return s.isBlank() ? Optional.empty() : Optional.of(s);
    }

    private static boolean parseBoolean(RouterOption o, String s) {
        return switch (s.toLowerCase()) {
            case "true", "on", "yes", "1" -> true;
            case "false", "off", "no", "0" -> false;
            default -> throw new IllegalArgumentException(o.key() + " must be true/false (on/off), got '" + s + "'");
        };
    }

    private static String parseLogFormat(String s) {
        if (!s.equals("text") && !s.equals("json")) {
            throw new IllegalArgumentException("logFormat must be text or json, got '" + s + "'");
        }
        return s;
    }
}
