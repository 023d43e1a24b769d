package io.lmwarden.router.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/grafana/lm-warden.json is a dashboard Grafana can import and every query in it asks for a
 * metric that exists: {@code lmw_*} names are checked against a running router's /metrics after
 * agent traffic, {@code vllm:*} names against a simulated replica's /metrics.
 */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "lm-warden.json");
    private static final String DATASOURCE_UID = "${DS_PROMETHEUS}";
    private static final int GRID_COLUMNS = 24;
    private static final Set<String> PANEL_TYPES = Set.of("timeseries", "stat", "gauge", "bargauge", "table", "text", "barchart", "heatmap");
    private static final Pattern METRIC = Pattern.compile("\\b(lmw_[a-z0-9_]+|vllm:[a-z0-9_:]+)");

    /** What the issue asks the dashboard to show. */
    private static final Set<String> REQUIRED = Set.of(
            "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total", "lmw_prompt_tokens_total",
            "lmw_requests_total", "lmw_spills_total", "lmw_ttfb_seconds_bucket", "lmw_in_flight_requests",
            "lmw_prefix_breaks_total", "lmw_cache_misses_total", "lmw_queue_ate_gain_total", "lmw_sticky_sessions",
            "lmw_stale_metrics_fallbacks_total", "lmw_request_errors_total", "lmw_spills_out_total",
            "lmw_queue_length", "lmw_queue_wait_seconds_bucket", "lmw_admission_rejected_total", "lmw_resident_sessions",
            "lmw_resident_tokens", "lmw_kv_budget_tokens",
            // Issue 24: the host-memory KV tier.
            "vllm:external_prefix_cache_hits_total", "vllm:external_prefix_cache_queries_total", "lmw_host_tier_capacity_tokens",
            "lmw_host_tier_load_bytes_per_second");

    /** Series created by their first event rather than at 0 (N×(N−1) spill pairs would dominate the series count). */
    private static final Set<String> BORN_ON_FIRST_EVENT = Set.of("lmw_spills_total");

    private static JsonNode dashboard;

    @BeforeAll
    static void read() throws IOException {
        assertThat(DASHBOARD).as("dashboard file (tests run from the router module)").isRegularFile();
        dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    }

    @Test
    void hasTheTopLevelShapeGrafanaImports() {
        assertThat(dashboard.path("title").asText()).isEqualTo("LM Warden");
        assertThat(dashboard.path("uid").asText()).matches("[A-Za-z0-9_-]{1,40}");
        assertThat(dashboard.path("schemaVersion").isInt()).isTrue();
        assertThat(dashboard.path("schemaVersion").asInt()).isBetween(36, 41);
        assertThat(dashboard.path("panels").isArray()).isTrue();
        assertThat(dashboard.path("panels").size()).isGreaterThan(5);
        JsonNode variables = dashboard.path("templating").path("list");
        assertThat(variables.isArray()).isTrue();
        List<JsonNode> datasources = new ArrayList<>();
        variables.forEach(v -> {
            if ("datasource".equals(v.path("type").asText()) && "DS_PROMETHEUS".equals(v.path("name").asText())) {
                datasources.add(v);
            }
        });
        assertThat(datasources).as("a Prometheus datasource variable DS_PROMETHEUS").hasSize(1);
        assertThat(datasources.get(0).path("query").asText()).isEqualTo("prometheus");
        assertThat(datasources.get(0).path("current").path("value").asText()).as("datasource variable's current value").isNotBlank();
    }

    @Test
    void everyPanelIsPlacedOnTheGridWithItsOwnIdAndAQuery() {
        Set<Integer> ids = new HashSet<>();
        Set<String> occupied = new HashSet<>();
        for (JsonNode p : dashboard.path("panels")) {
            String title = p.path("title").asText();
            assertThat(title).as("panel title").isNotBlank();
            assertThat(p.path("id").isInt()).as("id of %s", title).isTrue();
            assertThat(ids.add(p.path("id").asInt())).as("id %s of %s is unique", p.path("id"), title).isTrue();
            assertThat(PANEL_TYPES).as("type of %s", title).contains(p.path("type").asText());
            JsonNode grid = p.path("gridPos");
            for (String k : List.of("x", "y", "w", "h")) {
                assertThat(grid.path(k).isInt()).as("gridPos.%s of %s", k, title).isTrue();
            }
            int x = grid.path("x").asInt(), y = grid.path("y").asInt(), w = grid.path("w").asInt(), h = grid.path("h").asInt();
            assertThat(x).as("x of %s", title).isBetween(0, GRID_COLUMNS - 1);
            assertThat(y).as("y of %s", title).isNotNegative();
            assertThat(w).as("w of %s", title).isPositive();
            assertThat(h).as("h of %s", title).isPositive();
            assertThat(x + w).as("right edge of %s", title).isLessThanOrEqualTo(GRID_COLUMNS);
            for (int cx = x; cx < x + w; cx++) {
                for (int cy = y; cy < y + h; cy++) {
                    assertThat(occupied.add(cx + "," + cy)).as("%s overlaps another panel at %d,%d", title, cx, cy).isTrue();
                }
            }
            assertThat(p.path("datasource").path("uid").asText()).as("datasource of %s", title).isEqualTo(DATASOURCE_UID);
            JsonNode targets = p.path("targets");
            assertThat(targets.isArray() && !targets.isEmpty()).as("targets of %s", title).isTrue();
            Set<String> refIds = new HashSet<>();
            for (JsonNode t : targets) {
                String expr = t.path("expr").asText();
                assertThat(expr).as("expr in %s", title).isNotBlank();
                assertThat(balanced(expr)).as("brackets of %s in %s", expr, title).isTrue();
                assertThat(refIds.add(t.path("refId").asText())).as("refId in %s", title).isTrue();
                assertThat(t.path("datasource").path("uid").asText(DATASOURCE_UID)).isEqualTo(DATASOURCE_UID);
            }
        }
    }

    @Test
    void everyQueryFollowsTheDashboardsVariablesAndEveryPanelHasAUnit() {
        Pattern range = Pattern.compile("\\[([^\\]]+)\\]");
        for (JsonNode p : dashboard.path("panels")) {
            String title = p.path("title").asText();
            assertThat(p.path("fieldConfig").path("defaults").path("unit").asText()).as("unit of %s", title).isNotBlank();
            for (JsonNode t : p.path("targets")) {
                String expr = t.path("expr").asText();
                Matcher m = range.matcher(expr);
                while (m.find()) {
                    assertThat(m.group(1)).as("range in %s: Grafana picks it from the scrape interval", title).isEqualTo("$__rate_interval");
                }
                Matcher selector = Pattern.compile("\\b(lmw_[a-z0-9_]+|vllm:[a-z0-9_:]+|jvm_[a-z_]+|process_[a-z_]+)(\\{[^}]*\\})?").matcher(expr);
                while (selector.find()) {
                    String labels = selector.group(2) == null ? "" : selector.group(2);
                    assertThat(labels).as("%s in %s filters by namespace and ModelDeployment", selector.group(1), title)
                            .contains("namespace=~\"$namespace\"", "model_deployment=~\"$model_deployment\"");
                    if (!selector.group(1).startsWith("vllm:")) {
                        assertThat(labels).as("%s in %s filters by router pod", selector.group(1), title).contains("pod=~\"$router\"");
                    }
                }
            }
        }
        Set<String> names = new HashSet<>();
        dashboard.path("templating").path("list").forEach(v -> names.add(v.path("name").asText()));
        assertThat(names).contains("DS_PROMETHEUS", "namespace", "model_deployment", "router");
    }

    @Test
    void showsWhatTheIssueAsksFor() {
        assertThat(metricsUsed()).containsAll(REQUIRED);
    }

    @Test
    void queriesOnlyMetricsTheRouterAndTheEnginesExpose() throws Exception {
        Set<String> routerNames;
        Set<String> engineNames;
        // Engines with a host KV tier: the router's lmw_host_tier_* series exist only for replicas that have one.
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile().withKvOffloadGib(1), 20), c -> c)) {
            AgentWorkload.Result traffic = new AgentWorkload(2, 2, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "graf");
            assertThat(traffic.statuses()).containsOnly(200);
            Http http = new Http();
            routerNames = exposedNames(http.get(router.url() + "/metrics").body());
            engineNames = exposedNames(http.get(router.sims().url(0) + "/metrics").body());
        }
        List<String> unknown = new ArrayList<>();
        for (String name : metricsUsed()) {
            // Every counter exists from the start (at 0), not only after its first event, but the spill pairs.
            boolean known = name.startsWith("vllm:") ? engineNames.contains(name)
                    : routerNames.contains(name) || BORN_ON_FIRST_EVENT.contains(name);
            if (!known) {
                unknown.add(name);
            }
        }
        assertThat(unknown).as("metrics in the dashboard that nothing exposes; router exposes %s", routerNames).isEmpty();
    }

    private static Set<String> metricsUsed() {
        Set<String> names = new TreeSet<>();
        for (JsonNode p : dashboard.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                Matcher m = METRIC.matcher(t.path("expr").asText());
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    /** Sample and family names in a Prometheus text exposition. */
    private static Set<String> exposedNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                names.add(line.split(" ")[2]);
            } else if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static boolean balanced(String expr) {
        Map<Character, Character> pairs = Map.of(')', '(', ']', '[', '}', '{');
        StringBuilder open = new StringBuilder();
        boolean quoted = false;
        for (char c : expr.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && (c == '(' || c == '[' || c == '{')) {
                open.append(c);
            } else if (!quoted && pairs.containsKey(c)) {
                if (open.isEmpty() || open.charAt(open.length() - 1) != pairs.get(c)) {
                    return false;
                }
                open.setLength(open.length() - 1);
            }
        }
        return open.isEmpty() && !quoted;
    }
}
