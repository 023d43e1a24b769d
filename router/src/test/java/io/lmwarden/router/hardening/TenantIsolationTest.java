package io.lmwarden.router.hardening;

import io.lmwarden.router.config.ServerSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants over real HTTP against simulated replicas that honour vLLM's {@code cache_salt}: the same
 * prompt from two tenants never shares cached blocks, one tenant's session id does not reach another's
 * session, a client's own {@code cache_salt} cannot buy its way into another tenant's cache, and the
 * admin API shows session keys as hashes except to an admin.
 */
class TenantIsolationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();
    private static final String PROMPT = "tenant isolation probe ".repeat(120);

    private static String chat(String extra) {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":2," + extra
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT + "\"}]}";
    }

    private static long cached(Http.Reply r) throws Exception {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).at("/usage/prompt_tokens_details/cached_tokens").asLong(-1);
    }

    @Test
    void tenantsShareNoCacheAndNoSessions() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 5),
                c -> c.with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("adm")))) {
            String url = router.url() + "/v1/chat/completions";
            Map<String, String> a = Map.of("Authorization", "Bearer sk-tenant-a", "X-Session-Id", "shared-id");
            Map<String, String> b = Map.of("x-api-key", "sk-tenant-b", "X-Session-Id", "shared-id");

            assertThat(cached(HTTP.post(url, chat(""), a))).isZero();
            assertThat(cached(HTTP.post(url, chat(""), a))).as("the same tenant hits its own cache").isGreaterThan(100);

            Http.Reply firstOfB = HTTP.post(url, chat(""), b);
            assertThat(cached(firstOfB)).as("another tenant's identical prompt finds nothing cached").isZero();
            assertThat(firstOfB.decision()).as("the same session id in another tenant is another session").isEqualTo("NEW");
            assertThat(cached(HTTP.post(url, chat("\"cache_salt\":\"guess\","), b)))
                    .as("a client's cache_salt is replaced by its tenant's").isGreaterThan(100);
            assertThat(cached(HTTP.post(url, chat("\"cache_salt\":\"guess\",\"cache_salt\":\"again\","), Map.of("X-Session-Id", "anon"))))
                    .as("without a tenant the client's own salt applies").isZero();

            JsonNode list = JSON.readTree(HTTP.get(router.url() + "/api/sessions", Map.of("Authorization", "Bearer adm")).body());
            assertThat(list.get("sessions").toString()).contains("/shared-id").doesNotContain("sk-tenant");
        }
    }

    @Test
    void sessionKeysAreHashesExceptToAnAdmin() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 5), c -> c)) {
            String email = "alice@example.com";
            String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":2,\"user\":\"" + email
                    + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            assertThat(HTTP.post(router.url() + "/v1/chat/completions", body, Map.of()).status()).isEqualTo(200);
            Http.Reply list = HTTP.get(router.url() + "/api/sessions");
            assertThat(list.body()).doesNotContain(email).contains("\"h-");
            String hash = JSON.readTree(list.body()).get("sessions").get(0).asText();
            Http.Reply one = HTTP.get(router.url() + "/api/sessions/" + hash);
            assertThat(one.status()).isEqualTo(200);
            assertThat(one.body()).doesNotContain(email).contains("\"replica\"");
        }
    }
}
