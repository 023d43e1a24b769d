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

            // The page's script is ES modules: app.js and every module it imports, each served as JavaScript (a browser
            // refuses a module served as anything else).
            String scripts = modules(http, router.url());
            assertThat(scripts).contains("/api/replicas").contains("/api/stats").contains("/api/sessions");
            // No external network: everything the page loads comes from the router (the SVG namespace is a name, not a fetch).
            String everything = page.body() + scripts + http.get(router.url() + "/ui/app.css").body();
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

    /** app.js and the modules it imports, transitively, in one string; each must be found and served as JavaScript. */
    private static String modules(Http http, String base) {
        java.util.Deque<String> todo = new java.util.ArrayDeque<>(java.util.List.of("app.js"));
        java.util.Set<String> seen = new java.util.LinkedHashSet<>();
        StringBuilder all = new StringBuilder();
        java.util.regex.Pattern imports = java.util.regex.Pattern.compile("from '\\./([a-z-]+\\.js)'");
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (!seen.add(name)) {
                continue;
            }
            Http.Reply script = http.get(base + "/ui/" + name);
            assertThat(script.status()).as(name).isEqualTo(200);
            assertThat(script.header("content-type")).as(name).contains("javascript");
            all.append(script.body());
            java.util.regex.Matcher m = imports.matcher(script.body());
            while (m.find()) {
                todo.push(m.group(1));
            }
        }
        assertThat(seen).as("the page's modules").contains("dom.js", "format.js", "api.js", "replicas.js", "stats.js", "sessions.js");
        return all.toString();
    }
}
