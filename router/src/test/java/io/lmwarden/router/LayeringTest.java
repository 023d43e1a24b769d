package io.lmwarden.router;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package layering of router/README.md, read from the sources: api → proxy → stats → diagnostics →
 * (api → cluster →)
 * placement → pool / session / config, with no way back up. Placement owns what it learns: nothing
 * outside it writes the prefix index, the prefill rates or the affinity table.
 */
class LayeringTest {

    private static final Path SOURCES = Path.of("src/main/java/io/lmwarden/router");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.lmwarden\\.(?:router\\.)?([a-z]+)\\.", Pattern.MULTILINE);

    /** What each package may import from the router's other packages (and io.lmwarden.common). */
    private static final Map<String, Set<String>> MAY_IMPORT = Map.of(
            "edge", Set.of("proxy", "session", "config", "common"),
            "api", Set.of("proxy", "stats", "diagnostics", "cluster", "placement", "pool", "session", "config", "common"),
            // The cluster implements placement's pin store and carries the peers' load; placement never sees it.
            "cluster", Set.of("placement", "pool", "config", "common"),
            "proxy", Set.of("stats", "diagnostics", "placement", "pool", "session", "config", "common"),
            "stats", Set.of("diagnostics", "placement", "pool", "session", "config", "common"),
            "diagnostics", Set.of("pool", "session", "config", "common"),
            "placement", Set.of("pool", "session", "config", "common"),
            "pool", Set.of("config", "common"),
            "session", Set.of("config", "common"),
            "config", Set.of("common"));

    /** Calls that change placement's state; only placement makes them. */
    private static final Pattern PLACEMENT_WRITES = Pattern.compile(
            "prefixIndexes\\.of\\([^)]*\\)\\.insert|\\.insert\\([^)]*shape|prefillRates\\.observe|rates\\.observe|affinity\\.pin|table\\.pin");

    private static List<Path> sources(String pkg) throws IOException {
        try (Stream<Path> files = Files.list(SOURCES.resolve(pkg))) {
            return files.filter(f -> f.toString().endsWith(".java")).toList();
        }
    }

    @Test
    void packagesOnlyImportDownwards() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, Set<String>> layer : MAY_IMPORT.entrySet()) {
            for (Path f : sources(layer.getKey())) {
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String target = m.group(1);
                    if (!target.equals(layer.getKey()) && !layer.getValue().contains(target)) {
                        violations.add(layer.getKey() + "/" + f.getFileName() + " imports " + target);
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void onlyPlacementWritesWhatPlacementLearns() throws IOException {
        List<String> violations = new ArrayList<>();
        for (String pkg : List.of("api", "proxy", "stats", "diagnostics", "pool", "session", "config")) {
            for (Path f : sources(pkg)) {
                Matcher m = PLACEMENT_WRITES.matcher(Files.readString(f));
                while (m.find()) {
                    violations.add(pkg + "/" + f.getFileName() + ": " + m.group());
                }
            }
        }
        assertThat(violations).isEmpty();
        // The seam is where it learns: the prefix index is filled on acceptance, the rates on a good end.
        assertThat(Files.readString(SOURCES.resolve("placement/PrefixLearning.java"))).contains("public void accepted(");
        assertThat(Files.readString(SOURCES.resolve("placement/PrefillLearning.java"))).contains("rates.observe(");
    }

    @Test
    void theRuntimeDoesNotKnowTheSimulator() throws IOException {
        // Only RouterMain's replica source for --simulate starts simulated replicas.
        List<Path> wiring = sources("").stream()
                .filter(f -> !Set.of("RouterMain.java", "SimulatedReplicas.java").contains(f.getFileName().toString())).toList();
        assertThat(wiring).extracting(f -> f.getFileName().toString()).contains("RouterRuntime.java", "RouterParts.java", "LmWardenRouter.java");
        for (Path f : wiring) {
            assertThat(Files.readString(f)).as(f.toString()).doesNotContain("io.lmwarden.sim");
        }
    }
}
