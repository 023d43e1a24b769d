package io.lmwarden.bench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.lmwarden.common.Durations;
import io.lmwarden.bench.client.ApiFlavour;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code --workload FILE}: session classes, the simulated pool's per-replica overrides and scheduled faults, in YAML.
 * A field a class leaves out takes the reference workload's value; unknown keys are an error, so typos do not
 * pass silently. bench/README.md documents the format and bench/workloads/ holds examples.
 */
public final class WorkloadFile {
    private static final Set<String> TOP = Set.of("seed", "classes", "pool", "faults");
    private static final Set<String> CLASS = Set.of("name", "share", "system", "firstMessage", "steps", "stepTokens",
            "maxTokens", "thinkTime", "thinkJitter", "api", "key");

    private WorkloadFile() {
    }

    public static Workload read(Path file) {
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read workload file " + file + ": " + e.getMessage(), e);
        }
    }

    public static Workload parse(String yaml, String where) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
        } catch (IOException e) {
            throw new IllegalArgumentException(where + ": not valid YAML: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(where + ": a workload file is a YAML mapping with 'classes'");
        }
        known(root, TOP, where);
        WorkloadSpec ref = WorkloadSpec.reference();
        long seed = root.path("seed").asLong(ref.seed());
        JsonNode classes = root.get("classes");
        if (classes == null || !classes.isArray() || classes.isEmpty()) {
            throw new IllegalArgumentException(where + ": 'classes' must list at least one session class");
        }
        List<SessionClass> out = new ArrayList<>();
        for (int i = 0; i < classes.size(); i++) {
            out.add(sessionClass(classes.get(i), seed, where + ": classes[" + i + "]"));
        }
        Map<Integer, String> overrides = new TreeMap<>();
        JsonNode pool = root.path("pool");
        if (!pool.isMissingNode()) {
            known(pool, Set.of("replicas"), where + ": pool");
            Iterator<Map.Entry<String, JsonNode>> it = pool.path("replicas").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                try {
                    overrides.put(Integer.parseInt(e.getKey()), e.getValue().asText());
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(where + ": pool.replicas keys are replica indexes (0, 1, …), got '" + e.getKey() + "'");
                }
            }
        }
        List<ScheduledFault> faults = new ArrayList<>();
        for (JsonNode f : root.path("faults")) {
            faults.add(ScheduledFault.parse(f.asText()));
        }
        try {
            return new Workload(out, overrides, faults);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static SessionClass sessionClass(JsonNode c, long seed, String where) {
        if (!c.isObject()) {
            throw new IllegalArgumentException(where + " must be a mapping");
        }
        known(c, CLASS, where);
        WorkloadSpec ref = WorkloadSpec.reference();
        String name = c.path("name").asText("");
        if (name.isBlank()) {
            throw new IllegalArgumentException(where + ": every class needs a 'name'");
        }
        JsonNode system = c.path("system");
        known(system, Set.of("tokens", "scope"), where + ".system");
        JsonNode first = c.path("firstMessage");
        known(first, Set.of("tokens", "shared"), where + ".firstMessage");
        int minSteps;
        int maxSteps;
        JsonNode steps = c.path("steps");
        if (steps.isObject()) {
            known(steps, Set.of("min", "max"), where + ".steps");
            minSteps = steps.path("min").asInt(ref.followUpSteps());
            maxSteps = steps.path("max").asInt(minSteps);
        } else {
            minSteps = steps.asInt(ref.followUpSteps());
            maxSteps = minSteps;
        }
        ApiFlavour api = ApiFlavour.parse(c.path("api").asText("anthropic"));
        try {
            WorkloadSpec shape = new WorkloadSpec(system.path("tokens").asInt(ref.systemTokens()), first.path("tokens").asInt(ref.firstTokens()),
                    minSteps, c.path("stepTokens").asInt(ref.stepTokens()), c.path("maxTokens").asInt(ref.maxOutputTokens()),
                    c.has("thinkTime") ? Durations.parse(c.get("thinkTime").asText()) : ref.thinkTime(),
                    c.path("thinkJitter").asDouble(ref.thinkJitter()), seed);
            SessionClass.SystemScope scope = switch (system.path("scope").asText("shared")) {
                case "shared" -> SessionClass.SystemScope.SHARED;
                case "class" -> SessionClass.SystemScope.CLASS;
                default -> throw new IllegalArgumentException("system.scope must be 'shared' or 'class'");
            };
            return new SessionClass(name, c.path("share").asDouble(1), shape, scope, first.path("shared").asBoolean(false), maxSteps, api,
                    c.has("key") ? SessionKeying.parse(c.get("key").asText()) : api.defaultKeying());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static void known(JsonNode node, Set<String> keys, String where) {
        if (node.isMissingNode() || node.isNull()) {
            return;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + " must be a mapping");
        }
        node.fieldNames().forEachRemaining(k -> {
            if (!keys.contains(k)) {
                throw new IllegalArgumentException(where + ": unknown key '" + k + "'; known: " + new java.util.TreeSet<>(keys));
            }
        });
    }
}
