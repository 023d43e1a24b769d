package io.lmwarden.sim;

import io.lmwarden.sim.http.EngineRelease;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code GET /version} over HTTP: vLLM's {@code {"version": ...}}, the operator's default release unless set. */
class VersionEndpointTest {

    @Test
    void answersTheDefaultReleaseAsVllmDoes() {
        try (SimCluster cluster = SimCluster.start(SimOptions.defaults())) {
            SimHttp.Reply r = new SimHttp(cluster.urls().get(0)).get("/version");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("version").asText()).isEqualTo("0.26.0");
            assertThat(r.json().size()).as("only the version, as vLLM: %s", r.body()).isEqualTo(1);
        }
    }

    @Test
    void answersTheReleaseItWasGiven() {
        try (SimCluster cluster = SimCluster.start(SimOptions.defaults().withReplicas(2), new EngineRelease("0.10.0"))) {
            for (String url : cluster.urls()) {
                assertThat(new SimHttp(url).get("/version").json().path("version").asText()).isEqualTo("0.10.0");
            }
        }
    }

    @Test
    void refusesWhatIsNoVersion() {
        assertThatThrownBy(() -> new EngineRelease("latest\"")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("engine version");
    }
}
