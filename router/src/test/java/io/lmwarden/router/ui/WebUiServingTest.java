package io.lmwarden.router.ui;

import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The router serves its dashboard from the jar and leaves every other path to the API. */
class WebUiServingTest {

    @Test
    void servesThePageAndItsFilesWithoutShadowingTheApi() {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 5), c -> c)) {
            Http http = new Http();
            Http.Reply page = http.get(router.url() + "/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.header("content-type")).startsWith("text/html");
            assertThat(page.header("cache-control")).isEqualTo("no-cache");
            assertThat(page.body()).contains("<title>LM Warden</title>").contains("/ui/app.js").contains("Data-parallel routing");

            Http.Reply script = http.get(router.url() + "/ui/app.js");
            assertThat(script.status()).isEqualTo(200);
            assertThat(script.header("content-type")).contains("javascript");
            assertThat(script.body()).contains("/api/replicas").contains("/api/stats").contains("/api/sessions");
            // No external network: everything the page loads comes from the router (the SVG namespace is a name, not a fetch).
            String everything = page.body() + script.body() + http.get(router.url() + "/ui/app.css").body();
            assertThat(everything.replace("http://www.w3.org/2000/svg", "svg-namespace"))
                    .doesNotContain("http://").doesNotContain("https://").doesNotContain("//cdn");

            assertThat(http.get(router.url() + "/ui/app.css").header("content-type")).startsWith("text/css");
            assertThat(http.get(router.url() + "/ui/index.html").body()).isEqualTo(page.body());

            Http.Reply missing = http.get(router.url() + "/ui/no-such-file.js");
            assertThat(missing.status()).isEqualTo(404);
            Http.Reply api = http.get(router.url() + "/api/no-such-endpoint");
            assertThat(api.status()).isEqualTo(404);
            assertThat(api.body()).contains("\"error\"").contains("no route for GET /api/no-such-endpoint");
            assertThat(http.get(router.url() + "/api/replicas").header("content-type")).isEqualTo("application/json");
        }
    }
}
