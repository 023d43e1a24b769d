package io.lmwarden.router.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Merges the three sources of settings with precedence flag &gt; environment &gt; YAML file &gt; default
 * into a {@link RouterConfig}; each value is parsed and checked by its {@link Setting}.
 */
public final class ConfigResolver {

    private ConfigResolver() {
    }

    /**
     * @param flags values given on the command line (only those given)
     * @param env   the process environment (only {@code LMW_*} keys are read)
     * @param file  values from the YAML file, by YAML key
     */
    public static RouterConfig resolve(Map<Setting<?>, String> flags, Map<String, String> env, Map<String, String> file) {
        return RouterConfig.of(SettingValues.resolve(flags, env, file));
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
        Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (SettingsTable.byKey(f.getKey()).isEmpty()) {
                throw new IllegalArgumentException("unknown setting '" + f.getKey() + "' in " + file + "; known: "
                        + SettingsTable.ALL.stream().map(Setting::key).collect(Collectors.joining(", ")));
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
}
