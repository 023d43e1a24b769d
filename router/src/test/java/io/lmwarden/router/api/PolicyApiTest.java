package io.lmwarden.router.api;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyApiTest {

    @Test
    void switchesPolicyAtRunTimeBehindTheAdminToken() {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.named("tiny"), 5),
                c -> c.with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("s3cret")))) {
            Http http = new Http();
            assertThat(http.get(router.url() + "/api/policy").status()).as("the whole admin API is behind the token").isEqualTo(401);
            assertThat(http.get(router.url() + "/api/policy", Map.of("Authorization", "bearer s3cret")).body()).contains("\"policy\":\"affinity\"").contains("\"affinity\":true");

            Http.Reply noToken = http.put(router.url() + "/api/policy", "{\"policy\":\"least-loaded\"}", Map.of());
            assertThat(noToken.status()).isEqualTo(401);
            Http.Reply unknown = http.put(router.url() + "/api/policy", "{\"policy\":\"random\"}", Map.of("Authorization", "Bearer s3cret"));
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(unknown.body()).contains("policy must be one of").contains("least-loaded").contains("got 'random'");
            // Read whole before anything changes: a bad policy leaves admission as it was.
            assertThat(http.put(router.url() + "/api/policy", "{\"policy\":\"random\",\"admission\":false}",
                    Map.of("Authorization", "Bearer s3cret")).status()).isEqualTo(400);
            assertThat(http.get(router.url() + "/api/policy", Map.of("Authorization", "Bearer s3cret")).body()).contains("\"admission\":true");
            Http.Reply ok = http.put(router.url() + "/api/policy", "{\"policy\":\"least-loaded\"}", Map.of("Authorization", "Bearer s3cret"));
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).contains("\"policy\":\"least-loaded\"").contains("\"affinity\":false");

            String chat = "{\"model\":\"Qwen/Qwen3-4B-Instruct-2507\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
            assertThat(http.post(router.url() + "/v1/chat/completions", chat, Map.of("X-Session-Id", "p1")).decision()).isEqualTo("NEW");
            assertThat(http.post(router.url() + "/v1/chat/completions", chat, Map.of("X-Session-Id", "p1")).decision()).isEqualTo("NEW");

            http.put(router.url() + "/api/policy", "{\"policy\":\"affinity\",\"spillThreshold\":\"3\"}", Map.of("Authorization", "Bearer s3cret"));
            Map<String, String> admin = Map.of("Authorization", "Bearer s3cret");
            assertThat(http.get(router.url() + "/api/replicas", admin).body()).contains("\"spillThreshold\":\"3\"").contains("\"spillThresholdValue\":3");
            assertThat(http.post(router.url() + "/v1/chat/completions", chat, Map.of("X-Session-Id", "p1")).decision()).isEqualTo("NEW");
            assertThat(http.post(router.url() + "/v1/chat/completions", chat, Map.of("X-Session-Id", "p1")).decision()).isEqualTo("STICKY");
            assertThat(http.get(router.url() + "/api/sessions/p1", admin).body()).contains("\"steps\"").contains("\"decision\":\"STICKY\"");
            assertThat(http.get(router.url() + "/api/sessions/unknown", admin).status()).isEqualTo(404);
            assertThat(http.get(router.url() + "/api/sessions/p1", Map.of("Authorization", "Bearer s3cre")).status())
                    .as("a token one character short").isEqualTo(401);

            // Admission is on by default and switches at run time with the policy.
            assertThat(http.get(router.url() + "/api/policy", admin).body()).contains("\"admission\":true");
            Http.Reply badAdmission = http.put(router.url() + "/api/policy", "{\"policy\":\"affinity\",\"admission\":\"maybe\"}",
                    Map.of("Authorization", "Bearer s3cret"));
            assertThat(badAdmission.status()).isEqualTo(400);
            assertThat(badAdmission.body()).contains("admission must be true or false");
            assertThat(http.put(router.url() + "/api/policy", "{\"policy\":\"affinity\",\"admission\":false}",
                    Map.of("Authorization", "Bearer s3cret")).body()).contains("\"admission\":false");
            assertThat(http.get(router.url() + "/api/replicas", admin).body()).contains("\"queue\":{\"admission\":false");
        }
    }
}
