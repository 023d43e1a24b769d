package io.lmwarden.router.config;

import io.lmwarden.common.Durations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigResolverTest {

    @Test
    void flagBeatsEnvBeatsFileBeatsDefault(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("router.yaml");
        Files.writeString(yaml, """
                port: 9000
                policy: round-robin
                spillThreshold: 4
                sessionIdleTimeout: 30m
                replicas:
                  - http://10.0.0.1:8000
                  - http://10.0.0.2:8000
                """);
        Map<String, String> file = ConfigResolver.readYaml(yaml);
        RouterConfig fromFile = ConfigResolver.resolve(Map.of(), Map.of(), file);
        assertThat(fromFile.port()).isEqualTo(9000);
        assertThat(fromFile.replicas()).containsExactly("http://10.0.0.1:8000", "http://10.0.0.2:8000");
        assertThat(fromFile.sessionIdleTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(fromFile.spillThreshold()).isEqualTo(SpillThreshold.fixed(4));

        RouterConfig withEnv = ConfigResolver.resolve(Map.of(), Map.of("LMW_POLICY", "least-loaded", "LMW_PORT", "9100"), file);
        assertThat(withEnv.policy()).isEqualTo("least-loaded");
        assertThat(withEnv.port()).isEqualTo(9100);

        RouterConfig withFlag = ConfigResolver.resolve(Map.of(RouterOption.POLICY, "affinity"), Map.of("LMW_POLICY", "least-loaded"), file);
        assertThat(withFlag.policy()).isEqualTo("affinity");
        assertThat(withFlag.port()).isEqualTo(9000);

        RouterConfig defaults = RouterConfig.defaults();
        assertThat(defaults.port()).isEqualTo(8000);
        assertThat(defaults.bodyLimitBytes()).isEqualTo(32L * 1024 * 1024);
        assertThat(defaults.spillThreshold().auto()).isTrue();
        assertThat(defaults.affinityMaxEntries()).isEqualTo(1_000_000);
        assertThat(defaults.sessionIdleTimeout()).isEqualTo(Duration.ofHours(2));
        assertThat(defaults.scrapeInterval()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void mistakesAreNamed(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("bad.yaml");
        Files.writeString(yaml, "polcy: affinity\n");
        assertThatThrownBy(() -> ConfigResolver.readYaml(yaml)).hasMessageContaining("unknown setting 'polcy'");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(RouterOption.SPILL_THRESHOLD, "lots"), Map.of(), Map.of()))
                .hasMessageContaining("spill threshold must be 'auto' or an integer");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(RouterOption.SESSION_IDLE_TIMEOUT, "soon"), Map.of(), Map.of()))
                .hasMessageContaining("not a duration");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(RouterOption.SIMULATE, "2", RouterOption.REPLICAS, "http://a:1"),
                Map.of(), Map.of())).hasMessageContaining("choose one replica source");
    }

    @Test
    void flagAndEnvNamesFollowTheKey() {
        assertThat(RouterOption.SPILL_THRESHOLD.flag()).isEqualTo("--spill-threshold");
        assertThat(RouterOption.K8S_SERVICE.flag()).isEqualTo("--k8s-service");
        assertThat(RouterOption.SPILL_THRESHOLD.env()).isEqualTo("LMW_SPILL_THRESHOLD");
        assertThat(SpillThreshold.AUTO.resolve(32)).isEqualTo(8);
        assertThat(ByteSizes.parse("32MiB")).isEqualTo(32L << 20);
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    }
}
