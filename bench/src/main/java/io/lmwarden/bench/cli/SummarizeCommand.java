package io.lmwarden.bench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lmw-bench summarize DIR...}: one Markdown table of the goal verdicts of several runs (a sweep: one run per
 * workload and profile), read from their results.json, so that a sweep's cells can be read side by side.
 */
@Command(name = "summarize", mixinStandardHelpOptions = true,
        description = {"Prints one table of the goal verdicts (default against the best other policy) of several runs, read",
                "from each run directory's results.json: per stage, the four figures, rejections in progress, the ratio to",
                "the ceiling and the verdict. Exit code 1 when a cell misses."})
public final class SummarizeCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParentCommand
    BenchMain parent;

    @Parameters(arity = "1..*", paramLabel = "DIR", description = "Run directories (or their results.json files).")
    List<Path> runs = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        StringBuilder md = new StringBuilder("| run | profile | sessions | output tok/min: best → default | sessions/h | TTFB p50 s |"
                + " Little's-law session time s | rejected in progress / first steps | default ÷ ceiling | prefix hits % default"
                + " (oracle) | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        boolean allMet = true;
        for (Path run : runs) {
            Path file = Files.isDirectory(run) ? run.resolve("results.json") : run;
            if (!Files.exists(file)) {
                throw new IllegalArgumentException(file + " does not exist");
            }
            JsonNode root = JSON.readTree(file.toFile());
            String name = file.toAbsolutePath().getParent().getFileName().toString();
            String profile = root.path("settings").path("profile").asText("?")
                    + (root.path("settings").path("profileOverrides").isTextual()
                    ? " (" + root.path("settings").path("profileOverrides").asText() + ")" : "");
            if (!root.has("goal")) {
                md.append("| ").append(name).append(" | ").append(profile).append(" | – | no verdict: the run has no default and"
                        + " other policy | | | | | | | |\n");
                continue;
            }
            for (JsonNode cell : root.path("goal").path("cells")) {
                allMet &= cell.path("met").asBoolean();
                String variant = cell.path("variant").asText("default");
                List<String> cells = new ArrayList<>(List.of(name, profile, cell.path("sessions").asText()
                        + (variant.equals("default") ? "" : " (" + variant + ")")));
                if (cell.path("criteria").isEmpty()) {
                    cells.addAll(java.util.Collections.nCopies(4, "–"));
                }
                for (JsonNode c : cell.path("criteria")) {
                    int decimals = c.path("figure").asText().startsWith("TTFB") ? 2 : 0;
                    cells.add((c.path("figure").asText().endsWith("(from calls)") ? "from calls: " : "")
                            + num(c.path("best"), decimals) + " (" + c.path("best_other").asText() + ") → "
                            + (c.path("default_censored").asBoolean() ? "≥ " : "") + num(c.path("default"), decimals)
                            + (c.path("delta_pct").isNumber() ? String.format(Locale.ROOT, " (%+.0f %%)", c.path("delta_pct").asDouble()) : "")
                            + (c.path("met").asBoolean() ? "" : " ✗"));
                }
                cells.add(cell.path("rejected_in_progress").asInt() + " / " + cell.path("rejected_first_steps").asInt());
                cells.add(cell.path("ceiling_ratio_output_tokens").isNumber()
                        ? String.format(Locale.ROOT, "%.2f", cell.path("ceiling_ratio_output_tokens").asDouble()) : "–");
                JsonNode row = defaultRow(root, variant, cell.path("sessions").asInt());
                cells.add(row == null ? "–" : num(row.path("prefix_hit_pct"), 1) + " (" + num(row.path("oracle_hit_pct"), 1) + ")");
                List<String> misses = new ArrayList<>();
                cell.path("misses").forEach(m -> misses.add(m.asText()));
                cells.add(cell.path("met").asBoolean() ? "meets" : "misses: " + String.join("; ", misses));
                md.append("| ").append(String.join(" | ", cells)).append(" |\n");
            }
        }
        parent.progress().print(md);
        return allMet ? 0 : 1;
    }

    private static JsonNode defaultRow(JsonNode root, String variant, int sessions) {
        for (JsonNode r : root.path("results")) {
            if (r.path("policy").asText().equals(variant) && r.path("sessions").asInt() == sessions) {
                return r;
            }
        }
        return null;
    }

    private static String num(JsonNode n, int decimals) {
        return n.isNumber() ? String.format(Locale.ROOT, decimals == 0 ? "%,.0f" : "%." + decimals + "f", n.asDouble()) : "n/a";
    }
}
