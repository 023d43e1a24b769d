package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.SecretKeySpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code router.tenantSecret}: the router's tenantSecret setting from a Secret, never from the ConfigMap or the args. */
class TenantSecretDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();

    private static List<EnvVar> routerEnv(ModelDeployment md) {
        return new RouterDeploymentDependent(DEFAULTS).desired(md).getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
    }

    @Test
    void theSecretReachesTheRouterAsItsEnvironmentVariable() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("llm");
        md.getSpec().getRouter().setTenantSecret(new SecretKeySpec("lmw-tenants", "salt-secret"));
        assertThat(routerEnv(md)).filteredOn(e -> e.getName().equals("LMW_TENANT_SECRET")).singleElement().satisfies(e -> {
            assertThat(e.getValue()).isNull();
            assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("lmw-tenants");
            assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("salt-secret");
            assertThat(e.getValueFrom().getSecretKeyRef().getOptional()).isFalse();
        });
        assertThat(new RouterConfigMapDependent(DEFAULTS).desired(md).getData().get(RouterSettings.CONFIG_FILE))
                .doesNotContain("tenantSecret").doesNotContain("lmw-tenants");
        assertThat(new RouterDeploymentDependent(DEFAULTS).desired(md).getSpec().getTemplate().getSpec().getContainers().get(0)
                .getArgs()).noneMatch(a -> a.contains("tenant"));

        md.getSpec().getRouter().setTenantSecret(new SecretKeySpec("lmw-tenants", null));
        assertThat(routerEnv(md)).filteredOn(e -> e.getName().equals("LMW_TENANT_SECRET")).singleElement()
                .satisfies(e -> assertThat(e.getValueFrom().getSecretKeyRef().getKey()).as("the default key").isEqualTo("token"));
    }

    @Test
    void withoutItTheRoutersAgreeOnTheirOwn() {
        assertThat(routerEnv(SampleModelDeployments.qwenDp4("llm"))).noneMatch(e -> e.getName().equals("LMW_TENANT_SECRET"));
    }

    @Test
    void aSecretWithoutANameIsRejected() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("llm");
        md.getSpec().getRouter().setTenantSecret(new SecretKeySpec(" ", "token"));
        assertThatThrownBy(() -> routerEnv(md)).hasMessageContaining("spec.router.tenantSecret.name is required");
    }

    @Test
    void theVariableIsTheOneTheRouterReads() throws Exception {
        // The router's settings table, which the router's DocumentationTest generates from its settings table.
        assertThat(Files.readString(Path.of("..", "router", "README.md")))
                .contains("| `tenantSecret` | `--tenant-secret` | `" + RouterDeploymentDependent.TENANT_SECRET_ENV + "` |");
    }
}
