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
    }
}
