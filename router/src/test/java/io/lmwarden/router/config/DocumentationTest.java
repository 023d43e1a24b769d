package io.lmwarden.router.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's reference must not drift from the code: its configuration table is the one generated
 * from {@link SettingsTable}, and every metric is documented. After adding a setting, run
 * {@code mvn -B -o -pl router -am test -Dtest=DocumentationTest -Dsurefire.failIfNoSpecifiedTests=false -Dlmw.writeReadme=true}
 * to write the new table into the README.
 */
class DocumentationTest {

    private static final Path README = Path.of("README.md");
    static final String BEGIN = "<!-- settings table: generated from config/SettingsTable by DocumentationTest; do not edit by hand -->";
    static final String END = "<!-- end of settings table -->";

    @Test
    void theConfigurationTableIsTheOneTheSettingsMake() throws Exception {
        String readme = Files.readString(README);
        int from = readme.indexOf(BEGIN);
        int to = readme.indexOf(END);
        assertThat(from).as("README has the settings table's markers").isGreaterThanOrEqualTo(0);
        assertThat(to).isGreaterThan(from);
        String expected = BEGIN + "\n" + table() + END;
        String actual = readme.substring(from, to + END.length());
        if (!actual.equals(expected) && Boolean.getBoolean("lmw.writeReadme")) {
            Files.writeString(README, readme.substring(0, from) + expected + readme.substring(to + END.length()));
            actual = expected;
        }
        assertThat(actual).as("README's settings table; rewrite it with -Dlmw.writeReadme=true").isEqualTo(expected);
    }

    /** One table per area, in the table's order. */
    static String table() {
        StringBuilder md = new StringBuilder();
        for (Area<?> area : SettingsTable.AREAS) {
            md.append("\n**").append(area.name()).append("** (`config/").append(area.type().getSimpleName()).append("`)\n\n");
            header(md);
            area.settings().forEach(s -> row(md, s));
        }
        md.append("\n**the file itself**\n\n");
        header(md);
        row(md, SettingsTable.CONFIG);
        md.append('\n');
        return md.toString();
    }

    private static void header(StringBuilder md) {
        md.append("| YAML key | flag | environment | type | default | meaning |\n| --- | --- | --- | --- | --- | --- |\n");
    }

    private static void row(StringBuilder md, Setting<?> s) {
        md.append("| `").append(s.key()).append("` | `").append(s.flag()).append("` | `").append(s.env()).append("` | ")
                .append(s.type()).append(" | ").append(s.defaultText().isEmpty() ? "—" : "`" + s.defaultText() + "`").append(" | ")
                .append(s.description().replace("|", "\\|")).append(" |\n");
    }

    @Test
    void everyMetricTheRouterRegistersIsDocumented() throws Exception {
        String source = Files.readString(Path.of("src/main/java/io/lmwarden/router/stats/RouterMetrics.java"));
        Matcher m = Pattern.compile("\"(lmw_[a-z_]+)\"").matcher(source);
        Set<String> names = new LinkedHashSet<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        assertThat(names).hasSizeGreaterThan(10);
        String readme = Files.readString(README);
        for (String name : names) {
            assertThat(readme).as("metric %s in README", name).contains("| `" + name + "` |");
        }
    }
}
