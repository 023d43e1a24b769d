package io.lmwarden.router.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
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
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard in a real headless Chromium against a real router in front of four simulated
 * replicas carrying agent traffic: the replicas card fills with live numbers and refreshes on its
 * own, the stats charts draw, a session's steps render, and the policy switch reports the API's
 * errors. Leaves a screenshot in {@code target/screenshots/dashboard.png}.
 */
class DashboardBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SCREENSHOT = Path.of("target", "screenshots", "dashboard.png");
    private static final int REPLICAS = 4;

    @Test
    void showsLiveReplicasStatsAndOneSessionsSteps() throws Exception {
        Chromium.missing().ifPresent(reason -> System.out.println("SKIPPED DashboardBrowserTest: " + reason));
        assumeTrue(Chromium.missing().isEmpty(), () -> Chromium.missing().orElse(""));
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(REPLICAS, SimProfile.defaultProfile(), 20),
                c -> c.withScrapeInterval(Duration.ofMillis(200)));
             Chromium chromium = Chromium.start(1280, 1000)) {
            Http http = new Http();
            AgentWorkload.Result traffic = new AgentWorkload(8, 4, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "ui");
            assertThat(traffic.statuses()).hasSize(32).containsOnly(200);

            ChromeDriver browser = chromium.driver();
            browser.get(router.url() + "/");
            assertThat(browser.getTitle()).isEqualTo("LM Warden");

            // Every replica's row shows the traffic: requests, pinned sessions and engine prefix hits.
            await(Duration.ofSeconds(15), "4 replica rows with requests, sticky sessions and prefix hits > 0", () -> {
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
            assertThat(chipValue(browser, "Spill threshold")).isEqualTo("8 (auto)");
            assertThat(chipValue(browser, "Sticky")).isEqualTo(String.format("%.1f%%", api.path("stickyPct").asDouble()));
            assertThat(browser.findElement(By.id("counters-note")).getText()).contains("since the router started");
            assertCapacityAdvisor(browser, api);

            // More traffic, no page reload: the counters move by themselves within the 1 s refresh.
            browser.executeScript("window.__sameDocument = true;");
            new AgentWorkload(4, 2, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "more");
            long sentAt = System.nanoTime();
            await(Duration.ofSeconds(3), "the requests column to reach 40 without a reload",
                    () -> sum(replicaRows(browser), "requests") == 40, () -> replicaRows(browser).toString());
            long refreshMillis = (System.nanoTime() - sentAt) / 1_000_000;
            System.out.println("dashboard showed the new requests " + refreshMillis + " ms after the traffic ended");
            assertThat(refreshMillis).as("live refresh").isLessThanOrEqualTo(2000);
            assertThat(browser.executeScript("return window.__sameDocument === true;")).isEqualTo(true);

            // Token charts: cached (blue) and computed (purple) prompt bars, output bars, a cached share.
            await(Duration.ofSeconds(10), "the stats charts to draw cached, computed and output bars", () ->
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
            String listed = io.lmwarden.router.session.SessionKey.displayHash(key);
            await(Duration.ofSeconds(5), "the recent sessions list to offer " + listed,
                    () -> !browser.findElements(By.cssSelector("#recent-sessions [data-session='" + listed + "']")).isEmpty(),
                    () -> browser.findElement(By.id("recent-sessions")).getText());
            WebElement input = browser.findElement(By.id("session-input"));
            input.sendKeys(key);
            browser.findElement(By.cssSelector("#session-form button")).click();
            await(Duration.ofSeconds(5), "4 steps of " + key,
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

            // A burst of new sessions: more distinct context (~3,000 unique tokens each) than the pool's KV cache holds.
            new AgentWorkload(64, 1, AgentSession.Identity.CLAUDE_CODE_HEADER, 12_000).run(router, "burst");
            JsonNode capacity = JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("capacity");
            assertThat(capacity.path("overCapacity").asBoolean()).as("router's capacity advice %s", capacity).isTrue();
            await(Duration.ofSeconds(3), "the capacity advisor's warning",
                    () -> "true".equals(browser.findElement(By.id("capacity")).getAttribute("data-over-capacity")),
                    () -> browser.findElement(By.id("capacity")).getText());
            assertThat(browser.findElement(By.id("capacity")).getText()).contains("over capacity")
                    .contains(String.format("%,d", capacity.path("poolKvTokens").asLong()));

            saveScreenshot(browser);

            // The policy switch shows the API's own error message, then switches for real.
            browser.findElement(By.id("spill-input")).clear();
            browser.findElement(By.id("spill-input")).sendKeys("lots");
            browser.findElement(By.id("policy-apply")).click();
            await(Duration.ofSeconds(5), "the policy error to show",
                    () -> browser.findElement(By.id("policy-status")).getText().startsWith("HTTP 400"),
                    () -> browser.findElement(By.id("policy-status")).getText());
            assertThat(JSON.readTree(http.get(router.url() + "/api/policy").body()).path("policy").asText()).isEqualTo("affinity");
            browser.findElement(By.id("spill-input")).clear();
            browser.findElement(By.id("spill-input")).sendKeys("auto");
            new Select(browser.findElement(By.id("policy-select"))).selectByValue("round-robin");
            browser.findElement(By.id("policy-apply")).click();
            await(Duration.ofSeconds(5), "the policy chip to show round-robin",
                    () -> "round-robin".equals(chipValue(browser, "Policy")) && "off".equals(chipValue(browser, "Affinity")),
                    () -> browser.findElement(By.id("routing-chips")).getText());
            assertThat(JSON.readTree(http.get(router.url() + "/api/policy").body()).path("policy").asText()).isEqualTo("round-robin");
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

    private static void await(Duration limit, String what, Supplier<Boolean> condition, Supplier<String> state) {
        long deadline = System.nanoTime() + limit.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.get()) {
                    return;
                }
                last = null;
            } catch (RuntimeException e) {
                // the page re-renders its tables on every refresh: an element may go stale mid-read
                last = e;
            }
            RouterUnderTest.sleep(100);
        }
        String seen;
        try {
            seen = state.get();
        } catch (RuntimeException e) {
            seen = "<unreadable: " + e + ">";
        }
        fail("timed out after " + limit.toMillis() + " ms waiting for " + what + "; page shows: " + seen
                + (last == null ? "" : "; last error: " + last));
    }

    /** The whole page, not just the window: Chromium renders beyond the viewport on request. */
    private static void saveScreenshot(ChromeDriver browser) throws Exception {
        Number height = (Number) browser.executeScript("return Math.ceil(document.documentElement.scrollHeight);");
        Map<String, Object> shot = browser.executeCdpCommand("Page.captureScreenshot", Map.of(
                "format", "png", "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", 1280, "height", height.intValue(), "scale", 1)));
        Files.createDirectories(SCREENSHOT.getParent());
        Files.write(SCREENSHOT, Base64.getDecoder().decode((String) shot.get("data")));
        System.out.println("dashboard screenshot: " + SCREENSHOT.toAbsolutePath());
    }
}
