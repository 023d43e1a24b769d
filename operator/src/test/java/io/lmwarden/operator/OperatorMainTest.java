package io.lmwarden.operator;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OperatorMainTest {

    @Test
    void namespacesAreACommaSeparatedListAndEmptyMeansAll() {
        assertThat(OperatorMain.parseNamespaces("")).isEmpty();
        assertThat(OperatorMain.parseNamespaces(null)).isEmpty();
        assertThat(OperatorMain.parseNamespaces(" team-a, team-b ,,")).isEqualTo(Set.of("team-a", "team-b"));
    }

    @Test
    void leaseDurationsUseKubernetesStyleUnits() {
        assertThat(OperatorMain.parseDuration("15s")).isEqualTo(Duration.ofSeconds(15));
        assertThat(OperatorMain.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(OperatorMain.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> OperatorMain.parseDuration("soon")).hasMessageContaining("--lease-duration");
    }

    @Test
    void optionsParseWithTheirDefaults() {
        OperatorMain main = new OperatorMain();
        new CommandLine(main).parseArgs("--http-port", "0", "--leader-election", "false", "--router-image", "x/router:1");
        assertThat(main.httpPort).isZero();
        assertThat(main.leaderElection).isFalse();
        assertThat(main.routerImage).isEqualTo("x/router:1");
        assertThat(main.leaseName).isEqualTo("lm-warden-operator");
        assertThat(main.allowedImages).as("every image by default").isEmpty();
    }

    @Test
    void allowedImagesIsACommaSeparatedListOfPatterns() {
        OperatorMain main = new OperatorMain();
        new CommandLine(main).parseArgs("--allowed-images", "registry.example/ml/*, vllm/vllm-openai:v0.11.*");
        assertThat(io.lmwarden.operator.reconciler.ImageAllowList.parse(main.allowedImages).patterns())
                .containsExactly("registry.example/ml/*", "vllm/vllm-openai:v0.11.*");
    }

    @Test
    void everyOptionIsInTheReadme() throws java.io.IOException {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        for (CommandLine.Model.OptionSpec option : new CommandLine(new OperatorMain()).getCommandSpec().options()) {
            if (!option.usageHelp() && !option.versionHelp()) {
                assertThat(readme).as(option.longestName() + " in operator/README.md").contains("`" + option.longestName());
            }
        }
        // What creating a ModelDeployment grants, said plainly, with the two ways to narrow it.
        String chartReadme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "helm", "lm-warden", "README.md"));
        for (String doc : java.util.List.of(readme, chartReadme)) {
            assertThat(doc.replaceAll("\\s+", " ")).contains("can run an image of their choice",
                    "Secrets", "service account", "allowedImages", "watchNamespaces");
        }
    }
}
