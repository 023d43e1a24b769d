package io.lmwarden.router.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's reference must not drift from the code: every setting and every metric is documented. */
class DocumentationTest {

    private static final Path README = Path.of("README.md");

    @Test
    void everySettingIsDocumentedWithItsFlagEnvironmentVariableAndDefault() throws Exception {
        String readme = Files.readString(README);
        for (RouterOption o : RouterOption.values()) {
            String row = "| `" + o.key() + "` | `" + o.flag() + "` | `" + o.env() + "` | "
                    + (o.defaultValue().isEmpty() ? "—" : "`" + o.defaultValue() + "`") + " |";
            assertThat(readme).as("README row for %s", o).contains(row);
        }
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
