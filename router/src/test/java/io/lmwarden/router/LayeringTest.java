package io.lmwarden.router;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package layering of router/README.md, read from the sources, every folder and subfolder: api → proxy → stats →
 * diagnostics → (api → cluster →) placement → pool / session / config, with no way back up; inside placement, its
 * concerns in their own order. Every package needs a rule here, so a new one is checked from its first file.
 * Placement owns what it learns: nothing outside it writes the prefix index, the prefill rates or the affinity table.
 */
class LayeringTest {

    private static final Path SOURCES = Path.of("src/main/java/io/lmwarden/router");
    /** The imported package: {@code placement.admission} for the router's own, {@code common} or {@code sim} for the other modules. */
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.lmwarden\\."
            + "(?:router\\.([a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*)|([a-z]+)(?:\\.[a-z][a-z0-9_]*)*)\\.[A-Z]", Pattern.MULTILINE);
    /** The root package wires everything together. */
    private static final String ROOT = "";
    private static final Set<String> ANYTHING = Set.of("*");

    /** What each package may import from the router's other packages (and io.lmwarden.common). */
    private static final Map<String, Set<String>> MAY_IMPORT = Map.ofEntries(
            Map.entry(ROOT, ANYTHING),
            Map.entry("edge", Set.of("proxy", "session", "config", "common")),
            Map.entry("api", Set.of("advisor", "kvevents", "proxy", "stats", "diagnostics", "cluster", "placement", "placement.admission", "placement.pins",
                    "placement.policy", "placement.prefix", "placement.lora", "pool", "session", "config", "common")),
            // The cluster implements placement's pin store and carries the peers' load; placement never sees it.
            Map.entry("cluster", Set.of("placement.pins", "placement.admission", "pool", "config", "common")),
            Map.entry("proxy", Set.of("tenant", "stats", "diagnostics", "placement", "placement.admission", "placement.filter",
                    "placement.reservation", "pool", "session", "config", "common")),
            // Naming tenants and salting their prompts: the request's facts below it, the cluster only through an interface.
            Map.entry("tenant", Set.of("session", "config", "common")),
            Map.entry("stats", Set.of("diagnostics", "placement", "placement.admission", "placement.pins", "placement.prefix",
                    "placement.reservation", "pool", "session", "config", "common")),
            Map.entry("diagnostics", Set.of("pool", "session", "config", "common")),
            // The host-tier advisor records steps from placement's feedback seam and reads the pool; it writes nothing there.
            Map.entry("advisor", Set.of("placement", "placement.reservation", "pool", "session", "config", "common")),
            // Placement by concern. The root holds the vocabulary (Placement, Decision, the policy interface) and the
            // pipeline (Placer: filters, client pinning, the policy); each concern below it, none above.
            Map.entry("placement", Set.of("placement.filter", "placement.prefix", "pool", "session", "config", "common")),
            Map.entry("placement.filter", Set.of("pool", "session", "config", "common")),
            Map.entry("placement.prefix", Set.of("kvevents", "pool", "session", "config", "common")),
            Map.entry("placement.pins", Set.of("placement", "pool", "session", "config", "common")),
            Map.entry("placement.policy", Set.of("placement", "placement.pins", "placement.prefix", "pool", "session", "config",
                    "common")),
            Map.entry("placement.reservation", Set.of("placement", "placement.prefix", "kvevents", "pool", "session", "config", "common")),
            // LoRA adapters: where an adapter's new session may go (a filter placement.pins applies), told by the feedback seam.
            Map.entry("placement.lora", Set.of("placement", "placement.pins", "placement.reservation", "pool", "session", "config",
                    "common")),
            // Admission wraps the pipeline: the budget in front of the reservation, for every attempt.
            Map.entry("placement.admission", Set.of("placement", "placement.filter", "placement.pins", "placement.prefix", "pool",
                    "session", "config", "common")),
            Map.entry("pool", Set.of("config", "common")),
            // Following the publishers discovery names and metering their views: the engines' view, the pool, the prefix index.
            Map.entry("cacheview", Set.of("kvevents", "placement.prefix", "pool", "config", "common")),
            // The engines' own cache view from their KV events: self-contained so far.
            Map.entry("kvevents", Set.of("config", "common")),
            Map.entry("session", Set.of("config", "common")),
            Map.entry("config", Set.of("common")));

    /** Calls that change placement's state; only placement makes them. */
    private static final Pattern PLACEMENT_WRITES = Pattern.compile(
            "prefixIndexes\\.of\\([^)]*\\)\\.insert|\\.insert\\([^)]*shape|prefillRates\\.observe|rates\\.observe|affinity\\.pin|table\\.pin");

    /** Every source file, by its package relative to the router's root ({@code ""}, {@code "placement.admission"}, …). */
    private static Map<String, List<Path>> sourcesByPackage() throws IOException {
        Map<String, List<Path>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                Path dir = SOURCES.relativize(f.getParent());
                out.computeIfAbsent(dir.toString().replace('/', '.'), k -> new ArrayList<>()).add(f);
            });
        }
        return out;
    }

    private static String shown(Path f) {
        return SOURCES.relativize(f).toString();
    }

    @Test
    void thereIsARuleForEveryPackage() throws IOException {
        Set<String> packages = sourcesByPackage().keySet();
        assertThat(packages).as("packages found in subfolders too").contains("placement.admission", "placement.policy");
        assertThat(new TreeSet<>(MAY_IMPORT.keySet())).as("packages with a rule: add one for each new package")
                .containsAll(packages);
    }

    @Test
    void packagesOnlyImportDownwards() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, List<Path>> pkg : sourcesByPackage().entrySet()) {
            Set<String> allowed = MAY_IMPORT.getOrDefault(pkg.getKey(), Set.of());
            if (allowed.equals(ANYTHING)) {
                continue;
            }
            for (Path f : pkg.getValue()) {
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    // io.lmwarden.router.SomeClass is the root package: nothing below may import the wiring.
                    String target = m.group(1) != null ? m.group(1) : m.group(2).equals("router") ? ROOT : m.group(2);
                    if (!target.equals(pkg.getKey()) && !allowed.contains(target)) {
                        violations.add(shown(f) + " imports " + (target.isEmpty() ? "the root package (the wiring)" : target));
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void onlyPlacementWritesWhatPlacementLearns() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, List<Path>> pkg : sourcesByPackage().entrySet()) {
            // Placement writes its own state; the cluster is the pin store itself.
            if (pkg.getKey().startsWith("placement") || pkg.getKey().equals("cluster")) {
                continue;
            }
            for (Path f : pkg.getValue()) {
                Matcher m = PLACEMENT_WRITES.matcher(Files.readString(f));
                while (m.find()) {
                    violations.add(shown(f) + ": " + m.group());
                }
            }
        }
        assertThat(violations).isEmpty();
        // The seam is where it learns: the prefix index is filled on acceptance, the rates on a good end.
        assertThat(Files.readString(SOURCES.resolve("placement/reservation/PrefixLearning.java"))).contains("public void accepted(");
        assertThat(Files.readString(SOURCES.resolve("placement/reservation/PrefillLearning.java"))).contains("rates.observe(");
    }

    /** Pins are moved, released and expired in one place: policies, admission and the wiring all go through it. */
    @Test
    void onlySessionHomesWritesThePins() throws IOException {
        Pattern pinWrites = Pattern.compile("\\.pin\\(|\\.claim\\(|pins\\(\\)::release|(?:pins|affinity|table)(?:\\(\\))?\\.release\\("
                + "|(?:pins|affinity)(?:\\(\\))?\\.expireIdle\\(");
        Set<String> store = Set.of("placement/pins/SessionHomes.java", "placement/pins/SessionPins.java", "placement/pins/AffinityTable.java");
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, List<Path>> pkg : sourcesByPackage().entrySet()) {
            for (Path f : pkg.getValue()) {
                // The cluster's pin store implements SessionPins; SessionHomes is the one that calls it.
                if (store.contains(shown(f)) || pkg.getKey().equals("cluster")) {
                    continue;
                }
                Matcher m = pinWrites.matcher(Files.readString(f));
                while (m.find()) {
                    violations.add(shown(f) + ": " + m.group());
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void theRuntimeDoesNotKnowTheSimulator() throws IOException {
        // Only RouterMain's replica source for --simulate starts simulated replicas.
        List<Path> wiring = sourcesByPackage().get(ROOT).stream()
                .filter(f -> !Set.of("RouterMain.java", "SimulatedReplicas.java").contains(f.getFileName().toString())).toList();
        assertThat(wiring).extracting(f -> f.getFileName().toString()).contains("RouterRuntime.java", "RouterParts.java", "LmWardenRouter.java");
        for (Path f : wiring) {
            assertThat(Files.readString(f)).as(shown(f)).doesNotContain("io.lmwarden.sim");
        }
    }
}
