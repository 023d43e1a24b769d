package io.lmwarden.router.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimFaults;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard in a real headless Chromium, 1000 px wide, against a real router in front of four
 * simulated replicas carrying agent traffic: the replicas card fills with live numbers and refreshes on
 * its own and fits the window; each replica lists its sessions, the steps that spilled off it and where
 * they went, and charts its requests and hits; its hit % over the recent window follows the traffic
 * while the engine's since-start figure lags; the sessions list is in arrival order to the millisecond;
 * the stats charts draw, a session's steps render, and the policy switch reports the API's errors.
 * Leaves a screenshot in {@code target/screenshots/dashboard.png}.
 */
@Tag("browser")
class DashboardBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SCREENSHOT = Path.of("target", "screenshots", "dashboard.png");
    private static final int REPLICAS = 4;
    /**
     * Generous: no scene here is about health checks, and on a starved machine a 1 s /health timeout took a replica
     * out for a moment, released its sessions, and left it with no sticky session to show.
     */
    private static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(10);
    /** The narrow laptop window the replica table must fit without clipping or scrolling sideways. */
    private static final int WIDTH = 1000;

    @Test
    void showsLiveReplicasStatsAndOneSessionsSteps() throws Exception {
        Chromium.missing().ifPresent(reason -> System.out.println("SKIPPED DashboardBrowserTest: " + reason));
        assumeTrue(Chromium.missing().isEmpty(), () -> Chromium.missing().orElse(""));
        SimPool sims = SimPool.start(REPLICAS, SimProfile.defaultProfile(), 20);
        // Engine history from before the router: unique prompts that miss the cache. The engines' since-start
        // hit rate carries them; the router's recent window starts after them.
        missTheCacheDirectly(sims);
        long[][] engineAtStart = new long[REPLICAS][];
        for (int i = 0; i < REPLICAS; i++) {
            engineAtStart[i] = sims.prefixCounters(i);
        }
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.withScrapeInterval(Duration.ofMillis(200)).with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT));
             Chromium chromium = Chromium.start(WIDTH, 1000)) {
            Http http = new Http();
            // The recent window counts the engine from the router's first sample of its counters: wait for it.
            await("every replica's engine counters sampled once", () -> {
                for (JsonNode r : readJson(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
                    if (r.path("recent").path("engineSinceMillis").isNull()) {
                        return false;
                    }
                }
                return true;
            }, () -> http.get(router.url() + "/api/replicas").body());
            AgentWorkload.Result traffic = new AgentWorkload(8, 4, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "ui");
            assertThat(traffic.statuses()).hasSize(32).containsOnly(200);

            ChromeDriver browser = chromium.driver();
            browser.get(router.url() + "/");
            assertThat(browser.getTitle()).isEqualTo("LM Warden");

            // Every replica's row shows the traffic: requests, pinned sessions and engine prefix hits.
            await("4 replica rows with requests, sticky sessions and prefix hits > 0", () -> {
                Map<String, Map<String, String>> rows = replicaRows(browser);
                return rows.size() == REPLICAS && rows.values().stream().allMatch(r ->
                        number(r.get("requests")) > 0 && number(r.get("stickySessions")) > 0
                                && number(r.get("prefixHitRate")) > 0);
            }, () -> replicaRows(browser).toString());
            Map<String, Map<String, String>> rows = replicaRows(browser);
            JsonNode api = JSON.readTree(http.get(router.url() + "/api/replicas").body());
            for (JsonNode r : api.path("replicas")) {
                Map<String, String> row = rows.get(r.path("id").asText());
                assertThat(row).as("row of %s", r.path("id").asText()).isNotNull();
                assertThat(number(row.get("stickySessions"))).isEqualTo(r.path("stickySessions").asDouble());
                assertThat(row.get("ready")).startsWith("ready");
            }
            assertThat(sum(rows, "requests")).isEqualTo(32);
            assertThat(chipValue(browser, "Affinity")).isEqualTo("on");
            assertThat(chipValue(browser, "Policy")).isEqualTo("affinity");
            // Admission says whether the KV budget applies now, not only whether it is configured.
            assertThat(chipValue(browser, "Admission")).isEqualTo(!api.path("admission").asBoolean() ? "off"
                    : api.path("queue").path("thrash").path("engaged").asBoolean() ? "engaged" : "idle");
            assertThat(chipValue(browser, "Spill threshold")).isEqualTo("8 (auto)");
            assertThat(chipValue(browser, "Sticky steps")).isEqualTo(String.format("%.1f%%", api.path("stickyPct").asDouble()));
            assertThat(chipValue(browser, "Sticky sessions")).isEqualTo(String.format("%,d", api.path("affinityEntries").asInt()));
            assertThat(browser.findElement(By.id("counters-note")).getText()).contains("since the router started");
            assertCapacityAdvisor(browser, api);
            Map<String, Double> recentHits = assertRecentHitRates(browser, http, router, sims, engineAtStart, "after agent traffic");
            recentHits.forEach((replica, rate) -> assertThat(rate).as("%s: recent hit %% above the engine's since-start figure", replica)
                    .isGreaterThan(number(replicaRows(browser).get(replica).get("prefixHitRate")) / 100));
            assertChartsCountTheRequests(browser);
            assertFitsTheWindow(browser, "replica table, details closed");

            // Each replica lists the sessions whose home it is (as hashes: the viewer is no admin).
            browser.findElement(By.id("details-toggle")).click();
            await("a detail row under every replica",
                    () -> browser.findElements(By.cssSelector("#replicas-body tr.detail-row")).size() == REPLICAS,
                    () -> browser.findElement(By.id("replicas-body")).getText());
            Map<String, List<String>> listed = sessionsListedPerReplica(browser);
            traffic.replicasBySession().forEach((key, where) -> {
                String hash = io.lmwarden.router.session.SessionKey.displayHash(key);
                listed.forEach((replica, hashes) -> assertThat(hashes.contains(hash)).as("%s listed under %s", hash, replica)
                        .isEqualTo(replica.equals(where.get(0))));
            });
            assertThat(browser.findElement(By.id("replicas-body")).getText()).doesNotContain("ui-3-0a1b2c3d");
            assertFitsTheWindow(browser, "replica table with every replica's details open");

            // Sessions in arrival order, to the millisecond: three sent one after the other come last, in their order.
            List<String> sentInOrder = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                AgentSession one = new AgentSession("order-" + i + "-77aa", AgentSession.Identity.CLAUDE_CODE_HEADER, "order", 400, 90 + i);
                assertThat(http.post(router.url() + "/v1/messages", one.nextBody(8, false), one.headers()).status()).isEqualTo(200);
                sentInOrder.add(io.lmwarden.router.session.SessionKey.displayHash(one.id()));
            }
            await("the three sessions last in the arrival list", () -> {
                List<String> keys = arrivalKeys(browser);
                return keys.size() >= 3 && keys.subList(keys.size() - 3, keys.size()).equals(sentInOrder);
            }, () -> browser.findElement(By.id("arrivals-table")).getText());
            assertArrivalOrder(browser, http, router);

            // More traffic, no page reload: the page refreshes by itself. Not how fast (that is the configured period,
            // checked in the page's code): every refresh that began after the traffic ended shows it.
            assertThat(configuredMillis(http, router, "REPLICAS_EVERY_MS")).as("the replicas card's refresh period").isEqualTo(1000);
            browser.executeScript("window.__sameDocument = true;");
            double before = apiRequests(http, router);
            await("the requests column to show the API's " + before, () -> sum(replicaRows(browser), "requests") == before,
                    () -> replicaRows(browser).toString());
            new AgentWorkload(4, 2, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "more");
            assertThat(apiRequests(http, router)).isEqualTo(before + 8);
            // The refresh in progress now may have asked before the traffic ended; the one after it cannot have.
            long refreshesAtEnd = replicaRefreshes(browser);
            await("two refreshes of the replicas card after the traffic", () -> replicaRefreshes(browser) >= refreshesAtEnd + 2,
                    () -> "refreshes: " + replicaRefreshes(browser) + " (" + refreshesAtEnd + " when the traffic ended)");
            assertThat(sum(replicaRows(browser), "requests")).as("requests shown after a refresh, without a reload").isEqualTo(before + 8);
            assertThat(browser.executeScript("return window.__sameDocument === true;")).isEqualTo(true);

            // Token charts: cached (blue) and computed (purple) prompt bars, output bars, a cached share.
            await("the stats charts to draw cached, computed and output bars", () ->
                    !browser.findElements(By.cssSelector("#chart-hour rect.bar-cached")).isEmpty()
                            && !browser.findElements(By.cssSelector("#chart-hour rect.bar-computed")).isEmpty()
                            && !browser.findElements(By.cssSelector("#chart-hour rect.bar-output")).isEmpty()
                            && !browser.findElements(By.cssSelector("#chart-live rect.bar-cached")).isEmpty(),
                    () -> browser.findElement(By.id("stats-card")).getText());
            assertThat(chipValue(browser, "Cache hit last hour")).matches("\\d+\\.\\d%");
            assertThat(browser.findElement(By.id("stats-empty")).isDisplayed()).isFalse();

            // One session looked up by key: its four steps, NEW then STICKY, all on one replica.
            String key = "ui-3-0a1b2c3d-4e5f";
            // The list offers the key's hash (a raw key may be personal data); the raw key is typed in.
            String hashOfKey = io.lmwarden.router.session.SessionKey.displayHash(key);
            await("the sessions list to offer " + hashOfKey,
                    () -> !browser.findElements(By.cssSelector("#arrivals-body tr[data-session='" + hashOfKey + "']")).isEmpty(),
                    () -> browser.findElement(By.id("arrivals-table")).getText());
            WebElement input = browser.findElement(By.id("session-input"));
            input.clear();
            input.sendKeys(key);
            browser.findElement(By.cssSelector("#session-form button")).click();
            await("4 steps of " + key,
                    () -> browser.findElements(By.cssSelector("#steps-body tr[data-step]")).size() == 4,
                    () -> browser.findElement(By.id("session-card")).getText());
            Map<String, Map<String, String>> steps = tableRows(browser, "#steps-body tr[data-step]", "data-step");
            List<String> decisions = new ArrayList<>();
            List<String> replicas = new ArrayList<>();
            for (Map<String, String> step : steps.values()) {
                decisions.add(step.get("decision.badge"));
                replicas.add(step.get("replica"));
                assertThat(number(step.get("promptTokens"))).as("prompt tokens of %s", step).isPositive();
                assertThat(step.get("completed")).contains("completed");
                assertThat(step.get("ttfb")).as("TTFB with its router / queue / prefill split")
                        .matches("[0-9.]+ m?s [0-9.]+ m?s / ([0-9.]+ m?s|\u2013) / ([0-9.]+ m?s|\u2013).*");
            }
            assertThat(decisions).containsExactly("NEW", "STICKY", "STICKY", "STICKY");
            assertThat(replicas).containsOnly(traffic.replicasBySession().get(key).get(0));
            assertThat(number(steps.get("3").get("sharedPrefixTokens").replaceAll(" \\(.*", "")))
                    .as("prefix the last step shares with the one before").isPositive();

            causeASpillAndFindItOnThePage(browser, http, router);
            findABreakOnThePage(browser, http, router);

            // A burst of new sessions: more distinct context (~3,000 unique tokens each) than the pool's KV cache holds.
            new AgentWorkload(64, 1, AgentSession.Identity.CLAUDE_CODE_HEADER, 12_000).run(router, "burst");
            // The recent hit % follows: each replica's falls, to what its engine's counters say.
            Map<String, Double> afterBurst = assertRecentHitRates(browser, http, router, sims, engineAtStart, "after a burst of cold sessions");
            afterBurst.forEach((replica, rate) -> assertThat(rate).as("%s: recent hit %% after the burst", replica)
                    .isLessThan(recentHits.get(replica)));
            JsonNode capacity = JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("capacity");
            assertThat(capacity.path("overCapacity").asBoolean()).as("router's capacity advice %s", capacity).isTrue();
            await("the capacity advisor's warning",
                    () -> "true".equals(browser.findElement(By.id("capacity")).getAttribute("data-over-capacity")),
                    () -> browser.findElement(By.id("capacity")).getText());
            assertThat(browser.findElement(By.id("capacity")).getText()).contains("over capacity")
                    .contains(String.format("%,d", capacity.path("poolKvTokens").asLong()));

            saveScreenshot(browser);

            // A replica's Drain button takes it out of rotation (the card says so), its Undrain button takes it back.
            clickDrainButton(browser, "sim-3", "drain");
            await("sim-3 shown drained", () -> replicaRows(browser).get("sim-3").get("ready").startsWith("drained"),
                    () -> replicaRows(browser).get("sim-3").toString());
            assertThat(drainOf(http, router, "sim-3")).isEqualTo("drained");
            clickDrainButton(browser, "sim-3", "undrain");
            await("sim-3 shown ready again", () -> replicaRows(browser).get("sim-3").get("ready").startsWith("ready"),
                    () -> replicaRows(browser).get("sim-3").toString());
            assertThat(drainOf(http, router, "sim-3")).isEqualTo("none");

            // The policy switch shows the API's own error message, then switches for real.
            browser.findElement(By.id("spill-input")).clear();
            browser.findElement(By.id("spill-input")).sendKeys("lots");
            browser.findElement(By.id("policy-apply")).click();
            await("the policy error to show",
                    () -> browser.findElement(By.id("policy-status")).getText().startsWith("HTTP 400"),
                    () -> browser.findElement(By.id("policy-status")).getText());
            assertThat(JSON.readTree(http.get(router.url() + "/api/policy").body()).path("policy").asText()).isEqualTo("affinity");
            browser.findElement(By.id("spill-input")).clear();
            browser.findElement(By.id("spill-input")).sendKeys("auto");
            new Select(browser.findElement(By.id("policy-select"))).selectByValue("round-robin");
            browser.findElement(By.id("policy-apply")).click();
            await("the policy chip to show round-robin",
                    () -> "round-robin".equals(chipValue(browser, "Policy")) && "off".equals(chipValue(browser, "Affinity")),
                    () -> browser.findElement(By.id("routing-chips")).getText());
            assertThat(JSON.readTree(http.get(router.url() + "/api/policy").body()).path("policy").asText()).isEqualTo("round-robin");
        }
    }

    private static int inFlight(Http http, RouterUnderTest router, String replica) {
        for (JsonNode r : readJson(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
            if (r.path("id").asText().equals(replica)) {
                return r.path("inFlight").asInt();
            }
        }
        throw new AssertionError("no replica " + replica + " in /api/replicas");
    }

    /** Clicks the replica's Drain or Undrain button (the table is re-rendered every second: a button may go stale mid-click). */
    private static void clickDrainButton(ChromeDriver browser, String replica, String action) {
        await("the " + action + " button of " + replica, () -> {
            browser.findElement(By.cssSelector("button.drain-button[data-drain-for='" + replica + "'][data-action='" + action + "']")).click();
            return true;
        }, () -> browser.findElement(By.id("replicas-body")).getText());
    }

    private static String drainOf(Http http, RouterUnderTest router, String replica) throws Exception {
        for (JsonNode r : JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
            if (r.path("id").asText().equals(replica)) {
                return r.path("drain").asText();
            }
        }
        throw new AssertionError("no replica " + replica);
    }

    /** One unique prompt per replica, sent to the engine itself: prefix-cache queries that all miss. */
    /**
     * Two replicas with a small GPU cache and a host tier five times its size, eight sessions: their prefixes outgrow
     * the GPUs and come back from the tiers. Every replica's card shows the tier under the GPU's hit rate, both since
     * the engine started and over the recent window, with the figures of {@code /api/replicas}.
     */
    @Test
    void theHostTierShowsUnderEachReplicasHitRates() throws Exception {
        Chromium.missing().ifPresent(reason -> System.out.println("SKIPPED DashboardBrowserTest: " + reason));
        assumeTrue(Chromium.missing().isEmpty(), () -> Chromium.missing().orElse(""));
        // 256 blocks × 16 = 4,096 GPU tokens per replica; a tier of 5× that (147,456 B per token).
        SimProfile small = SimProfile.named(SimProfile.TINY).withCosts(20, 0.02, 0.1, 0.05, 0)
                .withKvOffloadGib(5 * 4096 * 147_456.0 / (1L << 30));
        SimPool sims = SimPool.start(2, small, 20);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.withScrapeInterval(Duration.ofMillis(200)).with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT));
             Chromium chromium = Chromium.start(WIDTH, 1000)) {
            Http http = new Http();
            AgentWorkload.Result traffic = new AgentWorkload(8, 4, AgentSession.Identity.CLAUDE_CODE_HEADER, 6000).run(router, "tier");
            assertThat(traffic.statuses()).containsOnly(200);
            await("host-tier hits in every replica's recent window", () -> {
                for (JsonNode r : readJson(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
                    if (!(r.path("recent").path("hostTierHitRate").asDouble(0) > 0)) {
                        return false;
                    }
                }
                return true;
            }, () -> http.get(router.url() + "/api/replicas").body());

            ChromeDriver browser = chromium.driver();
            browser.get(router.url() + "/");
            // The page against /api/replicas read in the same poll: a scrape between two reads may move the figures.
            await("a host line under both hit rates of each replica, as /api/replicas gives them", () -> {
                Map<String, Map<String, String>> tiers = tierLines(browser);
                JsonNode api = readJson(http.get(router.url() + "/api/replicas").body());
                return tiers.size() == 2 && tiers.values().stream().allMatch(t -> t.size() == 2)
                        && hostLinesMatch(tiers, api).isEmpty();
            }, () -> tierLines(browser) + "; mismatches: " + hostLinesMatch(tierLines(browser), readJson(http.get(router.url() + "/api/replicas").body())));
            Map<String, Map<String, String>> tiers = tierLines(browser);
            for (Map.Entry<String, Map<String, String>> t : tiers.entrySet()) {
                assertThat(t.getValue().get("hostTierHitRate")).startsWith("host ");
                assertThat(t.getValue().get("recentHostTierHitRate")).startsWith("host ");
                assertThat(number(t.getValue().get("recentHostTierHitRate").substring(5))).as("recent tier hit %% of %s", t.getKey())
                        .isGreaterThan(0);
            }
        }
    }

    /**
     * Issue 36: each replica's card says how many LoRA adapter slots its sessions use against the engine's
     * {@code max_loras}, and names each adapter with its sessions in the line's title, as {@code /api/replicas} has them.
     */
    @Test
    void eachReplicaShowsItsAdaptersSlotsAndSessions() throws Exception {
        Chromium.missing().ifPresent(reason -> System.out.println("SKIPPED DashboardBrowserTest: " + reason));
        assumeTrue(Chromium.missing().isEmpty(), () -> Chromium.missing().orElse(""));
        io.lmwarden.sim.lora.LoraOptions lora = io.lmwarden.sim.lora.LoraOptions.of(
                io.lmwarden.sim.lora.LoraModules.parse(List.of("alpha=/adapters/alpha", "beta=/adapters/beta")), 1, 2, 16, false);
        SimPool sims = SimPool.startWithLora(SimProfile.defaultProfile(), 20, List.of(lora, lora));
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.withScrapeInterval(Duration.ofMillis(200)).with(DiscoverySettings.HEALTH_TIMEOUT, HEALTH_TIMEOUT));
             Chromium chromium = Chromium.start(WIDTH, 1000)) {
            Http http = new Http();
            await("both replicas list both adapters", () -> {
                JsonNode rows = readJson(http.get(router.url() + "/api/replicas").body()).path("replicas");
                return rows.size() == 2 && rows.get(0).path("lora").path("adapters").size() == 2
                        && rows.get(1).path("lora").path("adapters").size() == 2;
            }, () -> http.get(router.url() + "/api/replicas").body());
            List<String> adapters = List.of("alpha", "alpha", "beta");
            for (int i = 0; i < adapters.size(); i++) {
                AgentSession s = new AgentSession(adapters.get(i) + "-" + i + "-ui", AgentSession.Identity.CLAUDE_CODE_HEADER, "lora", 400, 7 + i)
                        .model(adapters.get(i));
                assertThat(http.post(router.url() + "/v1/messages", s.nextBody(8, false), s.headers()).status()).isEqualTo(200);
            }
            ChromeDriver browser = chromium.driver();
            browser.get(router.url() + "/");
            await("a LoRA line under each replica's id: one slot of one, from the engine", () -> {
                Map<String, Map<String, String>> lines = loraLines(browser);
                return lines.size() == 2 && lines.values().stream().allMatch(l -> "LoRA 1/1 slots".equals(l.get("text"))
                        && l.get("title").contains("from metrics"));
            }, () -> loraLines(browser).toString());
            String titles = loraLines(browser).values().stream().map(l -> l.get("title")).reduce("", String::concat);
            assertThat(titles).contains("alpha: 2 sessions").contains("beta: 1 session");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, String>> loraLines(ChromeDriver browser) {
        return (Map<String, Map<String, String>>) browser.executeScript("""
                var out = {};
                document.querySelectorAll('#replicas-body tr[data-replica] span[data-col=lora]').forEach(function (s) {
                  out[s.closest('tr').getAttribute('data-replica')] = { text: s.textContent.trim(), title: s.getAttribute('title') };
                });
                return out;""");
    }

    /** The replicas whose since-start host line differs from /api/replicas' figure (empty: the page agrees). */
    private static List<String> hostLinesMatch(Map<String, Map<String, String>> tiers, JsonNode api) {
        List<String> mismatches = new ArrayList<>();
        for (JsonNode r : api.path("replicas")) {
            String id = r.path("id").asText();
            String expected = String.format("host %.1f%%", r.path("hostTier").path("hitRate").asDouble() * 100);
            String shown = tiers.getOrDefault(id, Map.of()).get("hostTierHitRate");
            if (!expected.equals(shown)) {
                mismatches.add(id + ": page " + shown + ", API " + expected);
            }
        }
        return mismatches;
    }

    /** Per replica row, the host-tier lines' text by their data-col. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, String>> tierLines(ChromeDriver browser) {
        return (Map<String, Map<String, String>>) browser.executeScript("""
                var out = {};
                document.querySelectorAll('#replicas-body tr[data-replica]').forEach(function (tr) {
                  var lines = {};
                  tr.querySelectorAll('span.tier-line[data-col]').forEach(function (s) {
                    lines[s.getAttribute('data-col')] = s.textContent.trim();
                  });
                  out[tr.getAttribute('data-replica')] = lines;
                });
                return out;""");
    }

    private static void missTheCacheDirectly(SimPool sims) {
        Http http = new Http();
        for (int i = 0; i < REPLICAS; i++) {
            for (int k = 0; k < 3; k++) {
                AgentSession cold = new AgentSession("cold-" + i + "-" + k, AgentSession.Identity.NONE, "cold " + i + " " + k, 6000, 700 + 10 * i + k);
                assertThat(http.post(sims.url(i) + "/v1/messages", cold.nextBody(4, false), Map.of()).status()).isEqualTo(200);
            }
        }
    }

    /**
     * Each replica's "hit % last 5 min" against its engine's own counters since the router started (the
     * test is shorter than the window): the router's figure in /api/replicas and the page's agree with it.
     */
    private static Map<String, Double> assertRecentHitRates(ChromeDriver browser, Http http, RouterUnderTest router, SimPool sims,
                                                            long[][] engineAtStart, String when) {
        Map<String, Double> expected = new java.util.TreeMap<>();
        for (int i = 0; i < REPLICAS; i++) {
            long[] now = sims.prefixCounters(i);
            expected.put("sim-" + i, (double) (now[1] - engineAtStart[i][1]) / (now[0] - engineAtStart[i][0]));
        }
        await("recent hit rates " + expected + " " + when, () -> {
            JsonNode rows = readJson(http.get(router.url() + "/api/replicas").body()).path("replicas");
            Map<String, Map<String, String>> page = replicaRows(browser);
            for (JsonNode r : rows) {
                double rate = r.path("recent").path("prefixHitRate").asDouble(-1);
                String id = r.path("id").asText();
                // The page prints one decimal of a percentage: within 0.05 points (and 1e-4 the API's rounding).
                if (Math.abs(rate - expected.get(id)) > 1e-3
                        || !(Math.abs(number(page.get(id).get("recentHitRate")) - rate * 100) <= 0.051)) {
                    return false;
                }
            }
            return true;
        }, () -> replicaRows(browser) + " / " + http.get(router.url() + "/api/replicas").body());
        return expected;
    }

    /** Every replica's sparkline: its request bars add up to the replica's requests (all within the last 5 minutes). */
    private static void assertChartsCountTheRequests(ChromeDriver browser) {
        await("each replica's chart to count its requests", () -> {
            @SuppressWarnings("unchecked")
            Map<String, List<Object>> charts = (Map<String, List<Object>>) browser.executeScript("""
                    var out = {};
                    document.querySelectorAll('#replicas-body tr[data-replica]').forEach(function (tr) {
                      var bars = 0, rates = [];
                      tr.querySelectorAll('svg.spark rect.spark-req').forEach(function (r) { bars += Number(r.getAttribute('data-requests')); });
                      var line = tr.querySelector('svg.spark polyline.spark-hit');
                      out[tr.getAttribute('data-replica')] = [bars, line ? line.getAttribute('data-rates') : ''];
                    });
                    return out;""");
            Map<String, Map<String, String>> rows = replicaRows(browser);
            for (Map.Entry<String, List<Object>> c : charts.entrySet()) {
                double bars = ((Number) c.getValue().get(0)).doubleValue();
                String rates = (String) c.getValue().get(1);
                if (bars != number(rows.get(c.getKey()).get("requests")) || rates.isBlank()) {
                    return false;
                }
                for (String r : rates.split(" ")) {
                    assertThat(Double.parseDouble(r)).as("hit rate point of %s", c.getKey()).isBetween(0.0, 1.0);
                }
            }
            return charts.size() == REPLICAS;
        }, () -> replicaRows(browser).toString());
    }

    /** Neither the replica table nor the page is wider than the window: no clipped column, no sideways scrolling. */
    private static void assertFitsTheWindow(ChromeDriver browser, String what) {
        @SuppressWarnings("unchecked")
        Map<String, Number> w = (Map<String, Number>) browser.executeScript("""
                var t = document.getElementById('replicas-table'), card = document.getElementById('routing-card');
                return {tableScroll: t.scrollWidth, tableClient: t.clientWidth, cardScroll: card.scrollWidth, cardClient: card.clientWidth,
                        pageScroll: document.documentElement.scrollWidth, window: window.innerWidth};""");
        assertThat(w.get("window").intValue()).as("window width").isEqualTo(WIDTH);
        assertThat(w.get("tableScroll").intValue()).as("%s: table scrollWidth vs clientWidth %s", what, w)
                .isLessThanOrEqualTo(w.get("tableClient").intValue());
        assertThat(w.get("cardScroll").intValue()).as("%s: card scrollWidth %s", what, w).isLessThanOrEqualTo(w.get("cardClient").intValue());
        assertThat(w.get("pageScroll").intValue()).as("%s: page scrollWidth %s", what, w).isLessThanOrEqualTo(WIDTH);
    }

    /** Replica id → the session keys its detail row lists. */
    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> sessionsListedPerReplica(ChromeDriver browser) {
        return new java.util.TreeMap<>((Map<String, List<String>>) browser.executeScript("""
                var out = {};
                document.querySelectorAll('#replicas-body tr.detail-row').forEach(function (tr) {
                  out[tr.getAttribute('data-detail-for')] = Array.from(tr.querySelectorAll('.detail-sessions [data-session]'))
                      .map(function (b) { return b.getAttribute('data-session'); });
                });
                return out;"""));
    }

    @SuppressWarnings("unchecked")
    private static List<String> arrivalKeys(ChromeDriver browser) {
        return (List<String>) browser.executeScript(
                "return Array.from(document.querySelectorAll('#arrivals-body tr[data-session]')).map(function (tr) { return tr.getAttribute('data-session'); });");
    }

    /** The page lists the sessions as /api/sessions does: by first arrival, each time to the millisecond. */
    @SuppressWarnings("unchecked")
    private static void assertArrivalOrder(ChromeDriver browser, Http http, RouterUnderTest router) {
        JsonNode arrivals = readJson(http.get(router.url() + "/api/sessions").body()).path("arrivals");
        List<String> apiOrder = new ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (JsonNode a : arrivals) {
            apiOrder.add(a.path("key").asText());
            assertThat(a.path("firstMillis").asLong()).as("arrival of %s", a).isGreaterThanOrEqualTo(previous);
            previous = a.path("firstMillis").asLong();
        }
        assertThat(apiOrder).hasSizeGreaterThanOrEqualTo(11);
        await("the page's list in the API's arrival order", () -> arrivalKeys(browser).equals(apiOrder),
                () -> arrivalKeys(browser) + " vs " + apiOrder);
        List<String> times = (List<String>) browser.executeScript(
                "return Array.from(document.querySelectorAll('#arrivals-body td[data-col=arrived]')).map(function (td) { return td.textContent; });");
        assertThat(times).hasSize(apiOrder.size()).allMatch(t -> t.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3}"));
        assertThat(times).as("times to the millisecond in arrival order").isSorted();
    }

    /**
     * The SpillTest scene with a spill threshold of 2: two client-pinned long requests hold a session's home
     * busy and its next step spills. The home's row counts it, its details say where it went and which
     * session, and the session's line in the arrival list shows the hop.
     */
    private static void causeASpillAndFindItOnThePage(ChromeDriver browser, Http http, RouterUnderTest router) throws Exception {
        assertThat(http.put(router.url() + "/api/policy", "{\"policy\":\"affinity\",\"spillThreshold\":\"2\"}", Map.of()).status()).isEqualTo(200);
        AgentSession session = new AgentSession("ui-spill-5a5a", AgentSession.Identity.CLAUDE_CODE_HEADER, AgentSession.sharedSystem(2000), 2000, 7);
        Http.Reply first = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
        String home = first.replica();
        session.append(AgentSession.replyText(first.body()), 400);
        // The home's replica holds the two pinned requests before their first byte until the spilled step is placed:
        // both are in flight when it is, however slow the machine.
        SimFaults homeFaults = SimFaults.of(router.sims(), home);
        homeFaults.holdNext(2);
        List<java.util.concurrent.CompletableFuture<Http.Reply>> load = new ArrayList<>();
        String dest;
        try {
            for (int i = 0; i < 2; i++) {
                String body = new AgentSession("ui-load-" + i, AgentSession.Identity.NONE, "load", 200, 60 + i).nextBody(8, false);
                load.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, Map.of("X-LMW-Replica", home))));
            }
            homeFaults.awaitHeld(2);
            await(home + " with 2 requests in flight", () -> inFlight(http, router, home) == 2, () -> http.get(router.url() + "/api/replicas").body());
            Http.Reply spilled = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
            assertThat(spilled.decision()).as("step with %s holding 2 in flight, threshold 2", home).isEqualTo("SPILL");
            dest = spilled.replica();
        } finally {
            homeFaults.release();
        }
        for (var f : load) {
            assertThat(f.get().status()).isEqualTo(200);
        }
        assertThat(http.put(router.url() + "/api/policy", "{\"policy\":\"affinity\",\"spillThreshold\":\"auto\"}", Map.of()).status()).isEqualTo(200);
        String hash = io.lmwarden.router.session.SessionKey.displayHash(session.id());
        await("the spill " + home + " → " + dest + " on the page", () ->
                        number(replicaRows(browser).get(home).get("spilledOut")) == 1
                                && !browser.findElements(By.cssSelector("tr[data-detail-for='" + home + "'] .spill-dest[data-to='" + dest
                                + "'][data-count='1']")).isEmpty()
                                && !browser.findElements(By.cssSelector("tr[data-detail-for='" + home + "'] .spill-item[data-session='" + hash
                                + "'][data-to='" + dest + "']")).isEmpty()
                                && !browser.findElements(By.cssSelector("#arrivals-body tr[data-session='" + hash + "'] .spill-hop[data-from='"
                                + home + "'][data-to='" + dest + "']")).isEmpty(),
                () -> browser.findElement(By.id("replicas-body")).getText());
        assertThat(renderedText(browser, "tr[data-detail-for='" + home + "'] .detail-spills"))
                .contains("\u2192 " + dest + " \u00d71").contains(hash);
        assertThat(replicaRows(browser).get(dest).get("spilledIn")).isEqualTo("1");
        assertFitsTheWindow(browser, "replica table with a spill listed");
    }

    /**
     * Issue 21: a prefix break early in the system prompt is shown under its step with its segment, its position in
     * that segment and the text that now stands there, as {@code /api/sessions/{key}} gives them.
     */
    private static void findABreakOnThePage(ChromeDriver browser, Http http, RouterUnderTest router) throws Exception {
        String key = "ui-break-6b6b";
        String fixed = "You are a careful coding agent. ".repeat(20);
        String user = "fix the failing test in router/src " + "detail ".repeat(60);
        for (String system : List.of(fixed + "Model: opus (1M context). Follow the rules.", fixed + "Model: opus. Follow the rules.")) {
            String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":8,\"system\":" + JSON.writeValueAsString(system)
                    + ",\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(user) + "}]}";
            assertThat(http.post(router.url() + "/v1/messages", body, Map.of("X-Claude-Code-Session-Id", key)).status()).isEqualTo(200);
        }
        JsonNode br = readJson(http.get(router.url() + "/api/sessions/" + key).body()).path("steps").get(1).path("prefixBreak");
        assertThat(br.path("segment").asText()).isEqualTo("system");
        WebElement input = browser.findElement(By.id("session-input"));
        input.clear();
        input.sendKeys(key);
        browser.findElement(By.cssSelector("#session-form button")).click();
        await("the break under step 2 of " + key,
                () -> !browser.findElements(By.cssSelector("#steps-body tr.break-note[data-break-for='1']")).isEmpty(),
                () -> browser.findElement(By.id("session-card")).getText());
        String note = browser.findElement(By.cssSelector("#steps-body tr.break-note[data-break-for='1']")).getText();
        assertThat(note).contains("in system (char " + String.format("%,d", br.path("charInSegment").asInt()) + " of it)");
        assertThat(browser.findElement(By.cssSelector("code[data-break-text='1']")).getText())
                .isEqualTo("\u2026" + br.path("text").asText().strip() + "\u2026")
                .contains("Model: opus.");
    }

    private static JsonNode readJson(String body) {
        try {
            return JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }

    /** The advisor is shown as a warning exactly when the router says the pool is over capacity. */
    private static void assertCapacityAdvisor(WebDriver browser, JsonNode api) {
        WebElement box = browser.findElement(By.id("capacity"));
        JsonNode capacity = api.path("capacity");
        if (!capacity.isObject()) {
            assertThat(box.isDisplayed()).isFalse();
            return;
        }
        assertThat(box.isDisplayed()).isTrue();
        boolean over = capacity.path("overCapacity").asBoolean();
        assertThat(box.getAttribute("data-over-capacity")).isEqualTo(Boolean.toString(over));
        assertThat(box.getText().contains("over capacity")).isEqualTo(over);
        assertThat(box.getText()).contains(String.format("%,d", capacity.path("poolKvTokens").asLong()))
                .contains(String.format("%,d active sessions", capacity.path("activeSessions").asLong()));
    }

    /** Rows of a table as {data-key of the row: {data-col: text}}, read in one script: the page re-renders them. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, String>> tableRows(WebDriver browser, String rowSelector, String keyAttribute) {
        Object rows = ((JavascriptExecutor) browser).executeScript("""
                var out = {}, rowSelector = arguments[0], keyAttribute = arguments[1];
                document.querySelectorAll(rowSelector).forEach(function (tr) {
                  var cells = {};
                  tr.querySelectorAll('td[data-col]').forEach(function (td) {
                    var badge = td.querySelector('.badge');
                    cells[td.getAttribute('data-col')] = td.textContent.trim();
                    if (badge) cells[td.getAttribute('data-col') + '.badge'] = badge.textContent.trim();
                  });
                  out[tr.getAttribute(keyAttribute)] = cells;
                });
                return out;""", rowSelector, keyAttribute);
        return new java.util.TreeMap<>((Map<String, Map<String, String>>) rows);
    }

    private static Map<String, Map<String, String>> replicaRows(WebDriver browser) {
        return tableRows(browser, "#replicas-body tr[data-replica]", "data-replica");
    }

    private static String chipValue(WebDriver browser, String label) {
        Object value = ((JavascriptExecutor) browser).executeScript(
                "var b = document.querySelector('.chip[data-chip=\"' + arguments[0] + '\"] b'); return b ? b.textContent : null;",
                label);
        return (String) value;
    }

    private static double sum(Map<String, Map<String, String>> rows, String column) {
        return rows.values().stream().mapToDouble(r -> number(r.get(column))).sum();
    }

    /** A number as the page prints it ("1,234", "82.2%"); NaN for a dash or nothing. */
    private static double number(String text) {
        if (text == null) {
            return Double.NaN;
        }
        String digits = text.replace(",", "").replace("%", "").trim();
        try {
            return Double.parseDouble(digits);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /**
     * Polls until the page (or the API) shows what is awaited. The deadline is {@link Await#HANG_GUARD}: it turns a
     * hang into a failure that says what the page showed, and bounds no speed.
     */
    private static void await(String what, Supplier<Boolean> condition, Supplier<String> state) {
        RuntimeException[] last = new RuntimeException[1];
        Await.until(what, () -> {
            try {
                last[0] = null;
                return condition.get();
            } catch (RuntimeException e) {
                // the page re-renders its tables on every refresh: an element may go stale mid-read
                last[0] = e;
                return false;
            }
        }, () -> {
            String seen;
            try {
                seen = state.get();
            } catch (RuntimeException e) {
                seen = "<unreadable: " + e + ">";
            }
            return "page shows: " + seen + (last[0] == null ? "" : "; last error: " + last[0]);
        });
    }

    /**
     * An element's text as rendered, found and read in one script: the replica table is rebuilt on every refresh, so
     * an element found by one call may be gone (stale) by the next.
     */
    private static String renderedText(ChromeDriver browser, String selector) {
        Object text = browser.executeScript("var e = document.querySelector(arguments[0]); return e ? e.innerText : null;", selector);
        assertThat(text).as("an element %s on the page", selector).isNotNull();
        return ((String) text).strip();
    }

    /** How many times the replicas card has refreshed since the page loaded (the page counts them). */
    private static long replicaRefreshes(ChromeDriver browser) {
        Object n = browser.executeScript("return Number(document.body.getAttribute('data-replica-refreshes') || 0);");
        return ((Number) n).longValue();
    }

    /** Requests the router has placed, over all replicas, as /api/replicas counts them. */
    private static double apiRequests(Http http, RouterUnderTest router) {
        double total = 0;
        for (JsonNode r : readJson(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
            total += r.path("requests").asDouble();
        }
        return total;
    }

    /** A refresh period as the page's script sets it ({@code const NAME = ms;}). */
    private static int configuredMillis(Http http, RouterUnderTest router, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("const " + name + " = (\\d+);").matcher(http.get(router.url() + "/ui/app.js").body());
        assertThat(m.find()).as("%s in the page's script", name).isTrue();
        return Integer.parseInt(m.group(1));
    }

    /** The whole page, not just the window: Chromium renders beyond the viewport on request. */
    private static void saveScreenshot(ChromeDriver browser) throws Exception {
        Number height = (Number) browser.executeScript("return Math.ceil(document.documentElement.scrollHeight);");
        Map<String, Object> shot = browser.executeCdpCommand("Page.captureScreenshot", Map.of(
                "format", "png", "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", WIDTH, "height", height.intValue(), "scale", 1)));
        Files.createDirectories(SCREENSHOT.getParent());
        Files.write(SCREENSHOT, Base64.getDecoder().decode((String) shot.get("data")));
        System.out.println("dashboard screenshot: " + SCREENSHOT.toAbsolutePath());
    }
}
