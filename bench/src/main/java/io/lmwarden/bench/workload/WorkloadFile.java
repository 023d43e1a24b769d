package io.lmwarden.bench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.lmwarden.common.api.ApiDialect;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
 * A field a class leaves out takes the reference workload's value, or its {@code base} class's; unknown keys are an
 * error, so typos do not pass silently. bench/README.md documents the format and bench/workloads/ holds examples.
 * {@code --workload NAME} with the name of a built-in workload ({@link #BUILT_IN}) runs that one.
 */
public final class WorkloadFile {
    /** Built-in workloads (and classes a file's class can take as its {@code base}), shipped in the jar. */
    public static final List<String> BUILT_IN = List.of("claude-code-tools");

    private static final Set<String> TOP = Set.of("seed", "classes", "pool", "faults", "start", "adapters");
    private static final Set<String> CLASS = Set.of("name", "base", "share", "system", "firstMessage", "steps", "calls",
            "stepTokens", "maxTokens", "thinkTime", "thinkJitter", "compaction", "api", "key");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private WorkloadFile() {
    }

    public static Workload read(Path file) {
        if (!Files.exists(file) && BUILT_IN.contains(file.toString())) {
            return parse(builtIn(file.toString()), file.toString());
        }
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read workload file " + file + ": " + e.getMessage() + " (built-in workloads: "
                    + String.join(", ", BUILT_IN) + ")", e);
        }
    }

    /** The YAML text of a built-in workload. */
    public static String builtIn(String name) {
        try (InputStream in = WorkloadFile.class.getResourceAsStream("/io/lmwarden/bench/workloads/" + name + ".yaml")) {
            if (in == null) {
                throw new IllegalArgumentException("no built-in workload '" + name + "'; built in: " + String.join(", ", BUILT_IN));
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the built-in workload " + name, e);
        }
    }

    public static Workload parse(String yaml, String where) {
        JsonNode root = tree(yaml, where);
        known(root, TOP, where);
        WorkloadSpec ref = WorkloadSpec.reference();
        long seed = root.path("seed").asLong(ref.seed());
        JsonNode classes = root.get("classes");
        if (classes == null || !classes.isArray() || classes.isEmpty()) {
            throw new IllegalArgumentException(where + ": 'classes' must list at least one session class");
        }
        List<SessionClass> out = new ArrayList<>();
        for (int i = 0; i < classes.size(); i++) {
            out.add(sessionClass(withBase(classes.get(i), where + ": classes[" + i + "]"), seed, where + ": classes[" + i + "]"));
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
            SessionStart start = root.has("start") ? SessionStart.parse(root.get("start").asText()) : SessionStart.FRESH;
            return new Workload(out, overrides, faults, start, adapters(root.path("adapters"), where + ": adapters"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    /** {@code adapters: {count: 16, zipf: 1.0, share: 0.5}}: count is required, zipf defaults to 1, share to 0.5. */
    private static AdapterMix adapters(JsonNode node, String where) {
        if (node.isMissingNode() || node.isNull()) {
            return AdapterMix.NONE;
        }
        known(node, Set.of("count", "zipf", "share"), where);
        if (!node.path("count").canConvertToInt() || node.path("count").asInt() < 1) {
            throw new IllegalArgumentException(where + ".count: how many adapters, a whole number >= 1");
        }
        return new AdapterMix(node.get("count").asInt(), node.path("zipf").asDouble(1.0), node.path("share").asDouble(0.5));
    }

    private static JsonNode tree(String yaml, String where) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (IOException e) {
            throw new IllegalArgumentException(where + ": not valid YAML: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(where + ": a workload file is a YAML mapping with 'classes'");
        }
        return root;
    }

    /** A class that names a built-in {@code base} takes that class's fields for the ones it leaves out. */
    private static JsonNode withBase(JsonNode c, String where) {
        if (!c.isObject() || !c.has("base")) {
            return c;
        }
        String base = c.get("base").asText();
        if (!BUILT_IN.contains(base)) {
            throw new IllegalArgumentException(where + ": base '" + base + "' is not a built-in class; built in: " + String.join(", ", BUILT_IN));
        }
        ObjectNode merged = ((ObjectNode) tree(builtIn(base), base).path("classes").get(0)).deepCopy();
        merged.setAll((ObjectNode) c);
        merged.remove("base");
        return merged;
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
        ApiDialect api = AgentApiNames.parse(c.path("api").asText("anthropic"));
        try {
            SessionShape shape = new SessionShape(system.path("tokens").asInt(ref.systemTokens()),
                    sizes(first.path("tokens"), ref.firstTokens(), where + ".firstMessage.tokens"),
                    calls(c, ref, where),
                    sizes(c.path("stepTokens"), ref.stepTokens(), where + ".stepTokens"),
                    sizes(c.path("maxTokens"), ref.maxOutputTokens(), where + ".maxTokens"),
                    pause(c, ref, where),
                    compaction(c.path("compaction"), where + ".compaction"),
                    seed);
            SessionClass.SystemScope scope = switch (system.path("scope").asText("shared")) {
                case "shared" -> SessionClass.SystemScope.SHARED;
                case "class" -> SessionClass.SystemScope.CLASS;
                default -> throw new IllegalArgumentException("system.scope must be 'shared' or 'class'");
            };
            return new SessionClass(name, c.path("share").asDouble(1), shape, scope, first.path("shared").asBoolean(false), api,
                    c.has("key") ? SessionKeying.parse(c.get("key").asText()) : AgentApiNames.defaultKeying(api));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith(where) ? e.getMessage() : where + ": " + e.getMessage(), e);
        }
    }

    private static Distribution sizes(JsonNode node, int reference, String where) {
        return node.isMissingNode() || node.isNull() ? new Distribution.Constant(reference)
                : DistributionSpec.parse(node, DistributionSpec.Unit.COUNT, where);
    }

    /** {@code calls} (model calls per session) or {@code steps} (follow-ups after the first call), not both. */
    private static Distribution calls(JsonNode c, WorkloadSpec ref, String where) {
        if (c.has("calls") && c.has("steps")) {
            throw new IllegalArgumentException(where + ": give 'calls' (per session) or 'steps' (follow-ups), not both");
        }
        if (c.has("calls")) {
            return DistributionSpec.parse(c.get("calls"), DistributionSpec.Unit.COUNT, where + ".calls");
        }
        JsonNode steps = c.path("steps");
        if (steps.isObject()) {
            known(steps, Set.of("min", "max"), where + ".steps");
            int min = steps.path("min").asInt(ref.followUpSteps());
            return new Distribution.IntRange(1 + min, 1 + steps.path("max").asInt(min));
        }
        int n = steps.asInt(ref.followUpSteps());
        return new Distribution.IntRange(1 + n, 1 + n);
    }

    /** {@code thinkTime}: a duration (uniform within {@code thinkJitter}) or a distribution of durations. */
    private static Distribution pause(JsonNode c, WorkloadSpec ref, String where) {
        JsonNode think = c.path("thinkTime");
        if (think.isObject()) {
            if (c.has("thinkJitter")) {
                throw new IllegalArgumentException(where + ": thinkJitter goes with a single thinkTime; a distribution has its own spread");
            }
            return DistributionSpec.parse(think, DistributionSpec.Unit.DURATION, where + ".thinkTime");
        }
        double mean = think.isMissingNode() ? ref.thinkTime().toNanos()
                : ((Distribution.Constant) DistributionSpec.parse(think, DistributionSpec.Unit.DURATION, where + ".thinkTime")).value();
        return new Distribution.Uniform(mean, c.path("thinkJitter").asDouble(ref.thinkJitter()));
    }

    private static Compaction compaction(JsonNode node, String where) {
        if (node.isMissingNode() || node.isNull() || (node.isBoolean() && !node.asBoolean())) {
            return Compaction.NEVER;
        }
        known(node, Set.of("at", "summaryTokens"), where);
        return new Compaction(node.path("at").asDouble(0.95), node.path("summaryTokens").asInt(3000));
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
