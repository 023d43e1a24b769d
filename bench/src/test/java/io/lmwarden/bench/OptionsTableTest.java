package io.lmwarden.bench;

import io.lmwarden.bench.cli.BenchMain;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bench/README.md's options table is the bench's reference: it lists every option {@code lmw-bench} parses (and no
 * other), each with the default the parser has. A new or renamed option, or a changed default, fails the build
 * until the table says so.
 */
class OptionsTableTest {

    private static final Pattern ROW = Pattern.compile("^\\| `(--[a-z0-9-]+)[^`]*`(?: \\(or `(--[a-z0-9-]+)`\\))? \\| ([^|]*) \\|");

    /** Options every picocli command has, documented once in the README's prose, not as rows. */
    private static final Set<String> STANDARD = Set.of("--help", "--version");

    /** Options whose parser default stands for a value found at run time, which the table names instead. */
    private static final Map<String, String> FOUND_AT_RUN_TIME = Map.of("--context-window", "0");

    @Test
    void everyOptionOfTheParserIsARowWithItsDefaultAndEveryRowIsAnOption() throws IOException {
        Map<String, String> rows = rows(Files.readAllLines(readme()));
        Map<String, OptionSpec> parsed = new LinkedHashMap<>();
        for (OptionSpec o : new CommandLine(new BenchMain()).getCommandSpec().options()) {
            if (!STANDARD.contains(o.longestName())) {
                parsed.put(o.longestName(), o);
            }
        }
        assertThat(new TreeSet<>(rows.keySet())).as("options in bench/README.md's table").containsExactlyInAnyOrderElementsOf(
                new TreeSet<>(parsed.keySet().stream().map(n -> aliasOf(n, parsed.get(n), rows)).toList()));
        List<String> wrongDefaults = new ArrayList<>();
        for (OptionSpec o : parsed.values()) {
            String shown = rows.get(aliasOf(o.longestName(), o, rows));
            String dflt = o.defaultValue();
            if (dflt == null || dflt.isEmpty() || o.type() == boolean.class || dflt.startsWith("${")
                    || dflt.equals(FOUND_AT_RUN_TIME.get(o.longestName()))) {
                continue;
            }
            if (!shown.replace("`", "").contains(dflt)) {
                wrongDefaults.add(o.longestName() + ": the parser's default is " + dflt + ", the table says " + shown.trim());
            }
        }
        assertThat(wrongDefaults).as("defaults in bench/README.md's table").isEmpty();
    }

    /** The name a row uses for the option: its longest name, or the other name the row gives first. */
    private static String aliasOf(String longest, OptionSpec o, Map<String, String> rows) {
        for (String name : o.names()) {
            if (rows.containsKey(name)) {
                return name;
            }
        }
        return longest;
    }

    private static Map<String, String> rows(List<String> lines) {
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inOptions = false;
        for (String line : lines) {
            if (line.startsWith("## ")) {
                inOptions = line.equals("## Options");
                continue;
            }
            Matcher m = ROW.matcher(line);
            if (inOptions && m.find()) {
                rows.put(m.group(1), m.group(3));
            }
        }
        return rows;
    }

    private static Path readme() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bench/README.md"))) {
                return p.resolve("bench/README.md");
            }
        }
        throw new IllegalStateException("no bench/README.md above " + here);
    }
}
