package io.lmwarden.router.cluster;

import io.lmwarden.router.config.TenantSettings;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.ClusteredRouters;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants across clustered routers, over real HTTP in front of a simulated replica that honours
 * {@code cache_salt}: with no {@code tenantSecret} configured, the members share the secret the first
 * one generated, so a tenant's step through one router finds the cache its step through another
 * filled (also on a router that joins later), while two tenants still share nothing. A configured
 * secret is used instead, and it keeps the salts through a restart of every router.
 */
@Tag("cluster")
class ClusteredTenantsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();

    private static String chat(String prompt) {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":2,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
    }

    private static long cached(String router, String prompt, Map<String, String> headers) throws Exception {
        Http.Reply r = HTTP.post(router + "/v1/chat/completions", chat(prompt), headers);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).at("/usage/prompt_tokens_details/cached_tokens").asLong(-1);
    }

    @Test
    void aTenantsCacheIsSharedAcrossRoutersAndNotAcrossTenants() throws Exception {
        try (ClusteredRouters routers = ClusteredRouters.start(SimPool.start(1, SimProfile.named("tiny"), 5), 3, 2, c -> c)) {
            routers.awaitAgreement(2, Duration.ofSeconds(30));
            String prompt = "clustered tenant probe ".repeat(120);
            Map<String, String> a = Map.of("Authorization", "Bearer sk-cluster-tenant-a", "X-Session-Id", "s1");
            Map<String, String> b = Map.of("x-api-key", "sk-cluster-tenant-b", "X-Session-Id", "s1");

            assertThat(cached(routers.url(0), prompt, a)).as("tenant a, step 1 via router 0").isZero();
            assertThat(cached(routers.url(1), prompt, a)).as("tenant a, step 2 via router 1: the salt router 0 set").isGreaterThan(100);
            assertThat(cached(routers.url(1), prompt, b)).as("tenant b's identical prompt via router 1").isZero();
            assertThat(cached(routers.url(0), prompt, b)).as("tenant b, step 2 via router 0").isGreaterThan(100);

            // A router that joins later adopts the same secret before it serves its first request.
            routers.startSlot(2);
            assertThat(cached(routers.url(2), prompt, a)).as("tenant a via the router that joined").isGreaterThan(100);
            String other = "second clustered tenant probe ".repeat(100);
            assertThat(cached(routers.url(2), other, b)).isZero();
            assertThat(cached(routers.url(0), other, a)).as("tenant a never sees tenant b's blocks").isZero();
        }
    }

    @Test
    void aConfiguredSecretWinsAndKeepsSaltsThroughAFullRestart() throws Exception {
        try (ClusteredRouters routers = ClusteredRouters.start(SimPool.start(1, SimProfile.named("tiny"), 5), 2, 1,
                c -> c.with(TenantSettings.TENANT_SECRET, java.util.Optional.of("configured-tenant-secret")))) {
            String prompt = "configured secret probe ".repeat(120);
            Map<String, String> a = Map.of("Authorization", "Bearer sk-restart-tenant", "X-Session-Id", "s2");
            assertThat(cached(routers.url(0), prompt, a)).isZero();

            routers.stopSlot(0);
            routers.startSlot(1);
            assertThat(cached(routers.url(1), prompt, a)).as("after every router restarted, with the same configured secret")
                    .isGreaterThan(100);
        }
    }
}
