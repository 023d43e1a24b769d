package io.lmwarden.bench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
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
 * The bench's packages import each other without a cycle (issue 35: commands in {@code cli}, the records a run is
 * described by in {@code settings}, {@code measure} in the runner), and nothing is left in the root package: a
 * newcomer finds a command, an option or a meter by its package.
 */
class PackageCycleTest {

    private static final Path SOURCES = Path.of("src", "main", "java", "io", "lmwarden", "bench");
    private static final Pattern REFERENCE = Pattern.compile("io\\.lmwarden\\.bench\\.([a-z]+)\\.[A-Z]");

    private static Map<String, Set<String>> imports() throws IOException {
        Map<String, Set<String>> graph = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path rel = SOURCES.relativize(f);
                String pkg = rel.getNameCount() == 1 ? "" : rel.getName(0).toString();
                Set<String> to = graph.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        to.add(m.group(1));
                    }
                }
            }
        }
        return graph;
    }

    @Test
    void thePackagesFormNoCycleAndTheRootIsEmpty() throws IOException {
        Map<String, Set<String>> graph = imports();
        assertThat(graph).as("classes in the root package").doesNotContainKey("");
        List<String> cycles = new ArrayList<>();
        for (String start : graph.keySet()) {
            // Depth-first from each package: reaching it again is a cycle.
            Set<String> seen = new HashSet<>();
            List<String> todo = new ArrayList<>(graph.get(start));
            while (!todo.isEmpty()) {
                String p = todo.remove(todo.size() - 1);
                if (p.equals(start)) {
                    cycles.add(start);
                    break;
                }
                if (seen.add(p)) {
                    todo.addAll(graph.getOrDefault(p, Set.of()));
                }
            }
        }
        assertThat(cycles).as("packages that reach themselves through their imports; the graph: %s", graph).isEmpty();
    }
}
