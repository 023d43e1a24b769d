package io.lmwarden.router.pool;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading {@code GET /version} answers and comparing releases; which features an endpoint's use makes it need. */
class EngineVersionTest {

    @Test
    void readsVllmsAnswerAndComparesReleaseNumbersOnly() {
        EngineVersion v = EngineVersion.parseResponse("{\"version\":\"0.11.1rc2.dev5+g1a2b3c\"}");
        assertThat(v.text()).isEqualTo("0.11.1rc2.dev5+g1a2b3c");
        assertThat(v.atLeast(EngineVersion.of("0.11.1"))).isTrue();
        assertThat(v.atLeast(EngineVersion.of("0.12.0"))).isFalse();
        assertThat(EngineVersion.of("0.26.0").atLeast(EngineVersion.of("0.9.2"))).as("numbers, not text").isTrue();
        assertThat(EngineVersion.of("1.0").compareTo(EngineVersion.of("0.26.0"))).isPositive();
    }

    @Test
    void anythingElseIsUnknownAndNeverOlder() {
        for (String body : new String[] {"", "not json", "{}", "{\"version\":12}", "{\"version\":\"dev\"}"}) {
            EngineVersion v = EngineVersion.parseResponse(body);
            assertThat(v).as(body).isEqualTo(EngineVersion.UNKNOWN);
            assertThat(v.atLeast(EngineFeature.HOST_TIER_METRICS.firstRelease())).as("no notice for %s", body).isTrue();
        }
    }

    @Test
    void aReplicaIsToldOnlyAboutTheFeaturesTheRouterUsesWithIt() {
        EngineVersionWarnings warnings = new EngineVersionWarnings();
        EngineVersion old = EngineVersion.of("0.10.0");
        assertThat(warnings.check("a", old, EngineVersionWarnings.used(false, false, false, false))).isEmpty();
        assertThat(warnings.check("a", old, EngineVersionWarnings.used(true, true, true, true)))
                .hasSize(3)
                .anySatisfy(w -> assertThat(w).startsWith("return_token_ids needs vLLM 0.10.2 or newer"))
                .anySatisfy(w -> assertThat(w).startsWith("X-data-parallel-rank header needs vLLM 0.11.0"))
                .anySatisfy(w -> assertThat(w).startsWith("host-tier metrics (vllm:kv_offload_*) needs vLLM 0.12.0"));
        assertThat(warnings.check("b", EngineVersion.of("0.26.0"), Set.copyOf(java.util.EnumSet.allOf(EngineFeature.class)))).isEmpty();
    }
}
