package io.lmwarden.router.config;

import io.lmwarden.common.Durations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

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
        assertThat(fromFile.server().port()).isEqualTo(9000);
        assertThat(fromFile.discovery().replicas()).containsExactly("http://10.0.0.1:8000", "http://10.0.0.2:8000");
        assertThat(fromFile.placement().sessionIdleTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(fromFile.placement().spillThreshold()).isEqualTo(SpillThreshold.fixed(4));

        RouterConfig withEnv = ConfigResolver.resolve(Map.of(), Map.of("LMW_POLICY", "least-loaded", "LMW_PORT", "9100"), file);
        assertThat(withEnv.placement().policy()).isEqualTo("least-loaded");
        assertThat(withEnv.server().port()).isEqualTo(9100);

        RouterConfig withFlag = ConfigResolver.resolve(Map.of(PlacementSettings.POLICY, "affinity"), Map.of("LMW_POLICY", "least-loaded"), file);
        assertThat(withFlag.placement().policy()).isEqualTo("affinity");
        assertThat(withFlag.server().port()).isEqualTo(9000);

        RouterConfig defaults = RouterConfig.defaults();
        assertThat(defaults.server().port()).isEqualTo(8000);
        assertThat(defaults.server().bodyLimitBytes()).isEqualTo(32L * 1024 * 1024);
        assertThat(defaults.placement().spillThreshold().auto()).isTrue();
        assertThat(defaults.placement().affinityMaxEntries()).isEqualTo(1_000_000);
        assertThat(defaults.placement().sessionIdleTimeout()).isEqualTo(Duration.ofHours(2));
        assertThat(defaults.discovery().scrapeInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(defaults.cluster()).isEqualTo(ClusterSettings.single());
    }

    @Test
    void mistakesAreNamedWithWhereTheyCameFrom(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("bad.yaml");
        Files.writeString(yaml, "polcy: affinity\n");
        assertThatThrownBy(() -> ConfigResolver.readYaml(yaml)).hasMessageContaining("unknown setting 'polcy'");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(PlacementSettings.SPILL_THRESHOLD, "lots"), Map.of(), Map.of()))
                .hasMessage("spillThreshold must be 'auto' or an integer >= 1, got 'lots' (from --spill-threshold)");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(), Map.of("LMW_SESSION_IDLE_TIMEOUT", "soon"), Map.of()))
                .hasMessageContaining("sessionIdleTimeout must be a duration").hasMessageContaining("(from LMW_SESSION_IDLE_TIMEOUT)");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(), Map.of(), Map.of("port", "80000")))
                .hasMessage("port must be 0..65535, got '80000' (from the config file)");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(DiscoverySettings.SIMULATE, "2", DiscoverySettings.REPLICAS, "http://a:1"),
                Map.of(), Map.of())).hasMessageContaining("choose one replica source");
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(UpstreamSettings.RETRY_ATTEMPTS, "zero"), Map.of(), Map.of()))
                .hasMessageContaining("retryAttempts must be a whole number, got 'zero'");
    }

    @Test
    void thePolicyNameIsCheckedWhenItIsRead() {
        assertThatThrownBy(() -> ConfigResolver.resolve(Map.of(PlacementSettings.POLICY, "random"), Map.of(), Map.of()))
                .hasMessage("policy must be one of affinity, cost, least-loaded, round-robin, passthrough, got 'random' (from --policy)");
        assertThatThrownBy(() -> RouterConfig.defaults().with(PlacementSettings.POLICY, "random"))
                .hasMessageContaining("policy must be one of");
    }

    @Test
    void codeThatChangesASettingIsCheckedLikeAFlag() {
        RouterConfig c = RouterConfig.defaults().with(AdmissionSettings.KV_BUDGET, 0.5).with(ServerSettings.ADMIN_PORT, OptionalInt.of(0));
        assertThat(c.admission().kvBudget()).isEqualTo(0.5);
        assertThat(c.server().adminPort()).hasValue(0);
        assertThatThrownBy(() -> c.with(AdmissionSettings.KV_BUDGET, 5.0)).hasMessage("kvBudget must be a share of the KV capacity in (0, 4], got '5.0'");
        assertThatThrownBy(() -> c.with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ZERO)).hasMessageContaining("queueTimeout must be > 0");
        assertThatThrownBy(() -> c.with(ServerSettings.ADMIN_PORT, OptionalInt.of(70_000))).hasMessageContaining("adminPort must be 0..65535");
        // A whole area at once, as the cluster tests build theirs.
        RouterConfig clustered = c.with(ClusterSettings.single().withStatic(List.of("127.0.0.1:7900"), 7900));
        assertThat(clustered.cluster().port()).isEqualTo(7900);
        assertThat(clustered.cluster().discovery()).contains(new ClusterSettings.Static(List.of("127.0.0.1:7900")));
        assertThat(clustered.admission().kvBudget()).isEqualTo(0.5);
    }

    @Test
    void flagAndEnvNamesFollowTheKey() {
        assertThat(PlacementSettings.SPILL_THRESHOLD.flag()).isEqualTo("--spill-threshold");
        assertThat(DiscoverySettings.K8S_SERVICE.flag()).isEqualTo("--k8s-service");
        assertThat(DiscoverySettings.K8S_SERVICE.env()).isEqualTo("LMW_K8S_SERVICE");
        assertThat(PlacementSettings.SPILL_THRESHOLD.env()).isEqualTo("LMW_SPILL_THRESHOLD");
        assertThat(PlacementSettings.PREFILL_MS_PER_TOKEN.env()).isEqualTo("LMW_PREFILL_MS_PER_TOKEN");
        assertThat(SpillThreshold.AUTO.resolve(32)).isEqualTo(8);
        assertThat(ByteSizes.parse("32MiB")).isEqualTo(32L << 20);
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void everySettingIsInOneAreaAndEveryKeyIsUnique() {
        Set<String> keys = new HashSet<>();
        for (Setting<?> s : SettingsTable.ALL) {
            assertThat(keys.add(s.key())).as("key %s once", s.key()).isTrue();
            // Each default is a good value of its own setting.
            s.defaultValue();
        }
        int inAreas = SettingsTable.AREAS.stream().mapToInt(a -> a.settings().size()).sum();
        assertThat(inAreas + 1).isEqualTo(SettingsTable.ALL.size());
        assertThat(SettingsTable.AREAS).allSatisfy(a -> assertThat(a.settings()).as(a.name()).hasSizeLessThanOrEqualTo(20));
    }

    /**
     * The binding by key: changing one setting changes exactly the component that holds it, in every area
     * (two settings of one type swapped, or one read twice, would change another component or none).
     */
    @Test
    void eachSettingLandsInItsOwnComponent() {
        RouterConfig defaults = RouterConfig.defaults();
        for (Area<?> area : SettingsTable.AREAS) {
            for (Setting<?> s : area.settings()) {
                RouterConfig changed = withOther(defaults, s);
                Record before = areaOf(defaults, area);
                Record after = areaOf(changed, area);
                java.lang.reflect.RecordComponent[] cs = area.type().getRecordComponents();
                int differing = 0;
                String which = null;
                for (java.lang.reflect.RecordComponent c : cs) {
                    try {
                        if (!c.getAccessor().invoke(before).equals(c.getAccessor().invoke(after))) {
                            differing++;
                            which = c.getName();
                        }
                    } catch (ReflectiveOperationException e) {
                        throw new AssertionError(e);
                    }
                }
                assertThat(differing).as("components of %s changed by %s (last: %s)", area.name(), s.key(), which).isEqualTo(1);
                assertThat(changed.get(s)).isNotEqualTo(defaults.get(s));
            }
        }
    }

    private static Record areaOf(RouterConfig c, Area<?> area) {
        return switch (area.name()) {
            case "server" -> c.server();
            case "discovery" -> c.discovery();
            case "upstream" -> c.upstream();
            case "placement" -> c.placement();
            case "admission" -> c.admission();
            case "cluster" -> c.cluster();
            case "tenants" -> c.tenants();
            case "logging" -> c.logging();
            case "simulation" -> c.simulation();
            case "kvEvents" -> c.kvEvents();
            default -> throw new AssertionError("an area without an accessor on RouterConfig: " + area.name());
        };
    }

    /** A good value other than the default, by the setting's type. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static RouterConfig withOther(RouterConfig c, Setting<?> s) {
        Object d = c.get(s);
        String text = switch (s.key()) {
            case "policy" -> "cost";
            case "transport" -> "nio";
            case "logFormat" -> "json";
            case "admissionEngage" -> "always";
            case "spillThreshold" -> "3";
            case "cluster" -> "dns:routers";
            case "replicas" -> "http://10.0.0.1:8000";
            case "kvBudget" -> "0.5";
            default -> null;
        };
        if (text != null) {
            return c.with((Setting) s, s.parse(text));
        }
        Object other;
        if (d instanceof Integer i) {
            other = i + 1;
        } else if (d instanceof Long l) {
            other = l + 1;
        } else if (d instanceof Double x) {
            other = x + 0.5;
        } else if (d instanceof Boolean b) {
            other = !b;
        } else if (d instanceof Duration du) {
            other = du.plusSeconds(1);
        } else if (d instanceof String str) {
            other = str + "-other";
        } else if (d instanceof Optional<?>) {
            other = Optional.of("x");
        } else if (d instanceof OptionalInt) {
            other = OptionalInt.of(1234);
        } else {
            throw new AssertionError("no other value for " + s.key() + " of " + d.getClass());
        }
        return c.with((Setting) s, other);
    }
}
