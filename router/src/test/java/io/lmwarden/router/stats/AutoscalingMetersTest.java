package io.lmwarden.router.stats;

import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.LogSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The signals the operator's KEDA and HPA examples scale on, read from {@code /metrics} while requests wait for a
 * saturated replica (a KV budget of one session): the queue's length and oldest wait, the share of the KV budget the
 * residents hold, rejections; every meter tagged {@code deployment} with the configured ModelDeployment; and every
 * {@code lmw_} name the examples query is one the router serves.
 */
class AutoscalingMetersTest {

    private static final String DEPLOYMENT = "qwen3-4b";
    private static final Path EXAMPLES = Path.of("..", "deploy", "examples");

    @Test
    void queueWaitAndBudgetShareAreServedTaggedWithTheDeployment() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 1),
                c -> c.with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS).with(AdmissionSettings.KV_BUDGET, 0.0001).with(AdmissionSettings.RESIDENCY_IDLE, Duration.ofSeconds(1))
                        .with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofSeconds(60))
                        .with(LogSettings.DEPLOYMENT, Optional.of(DEPLOYMENT)))) {
            Http http = new Http();
            String idle = http.get(router.url() + "/metrics").body();
            assertThat(value(idle, "lmw_queue_length")).isZero();
            assertThat(value(idle, "lmw_queue_oldest_wait_seconds")).isZero();
            assertThat(value(idle, "lmw_kv_budget_used_ratio")).isZero();

            List<CompletableFuture<Http.Reply>> open = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                AgentSession s = new AgentSession("scale-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, "autoscale", 400, 10 + i);
                String body = s.nextBody(i == 0 ? 80 : 8, i == 0);
                open.add(CompletableFuture.supplyAsync(() -> new Http().post(router.url() + "/v1/messages", body, s.headers())));
                if (i == 0) {
                    awaitMetric(http, router, "lmw_kv_budget_used_ratio", v -> v > 0);
                }
            }
            String busy = awaitMetric(http, router, "lmw_queue_length", v -> v == 2);
            assertThat(value(busy, "lmw_kv_budget_used_ratio")).as("one resident over a budget smaller than one block").isEqualTo(1.0);
            double firstWait = value(busy, "lmw_queue_oldest_wait_seconds");
            RouterUnderTest.sleep(300);
            double laterWait = value(http.get(router.url() + "/metrics").body(), "lmw_queue_oldest_wait_seconds");
            if (value(http.get(router.url() + "/metrics").body(), "lmw_queue_length") > 0) {
                assertThat(laterWait).as("the oldest wait grows while it waits").isGreaterThan(firstWait);
            }

            for (CompletableFuture<Http.Reply> f : open) {
                assertThat(f.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            String after = awaitMetric(http, router, "lmw_kv_budget_used_ratio", v -> v == 0);
            assertThat(value(after, "lmw_queue_length")).isZero();
            assertThat(value(after, "lmw_queue_oldest_wait_seconds")).isZero();
            assertThat(value(after, "lmw_admission_rejected_total", "reason=\"queue_full\"")).isZero();

            // Every sample, the router's own and the JVM's, carries the deployment.
            for (String line : after.split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    assertThat(line).as("sample").contains("deployment=\"" + DEPLOYMENT + "\"");
                }
            }
            // The names the examples query exist, as the router spells them.
            Set<String> queried = new TreeSet<>();
            for (String file : List.of("autoscaling-keda.yaml", "autoscaling-hpa.yaml")) {
                Matcher m = Pattern.compile("lmw_[a-z_]+").matcher(Files.readString(EXAMPLES.resolve(file)));
                while (m.find()) {
                    queried.add(m.group());
                }
            }
            queried.remove("lmw_admission_rejected_per_second"); // the adapter's name for the rate, not a router metric
            assertThat(queried).containsExactlyInAnyOrder("lmw_queue_length", "lmw_queue_oldest_wait_seconds", "lmw_kv_budget_used_ratio",
                    "lmw_admission_rejected_total");
            for (String name : queried) {
                assertThat(after).as("/metrics serves %s", name).containsPattern("(?m)^" + name + "\\{");
            }
        }
    }

    private static String awaitMetric(Http http, RouterUnderTest router, String name, java.util.function.DoublePredicate ok) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String text = http.get(router.url() + "/metrics").body();
        while (!ok.test(value(text, name)) && System.nanoTime() < deadline) {
            RouterUnderTest.sleep(20);
            text = http.get(router.url() + "/metrics").body();
        }
        assertThat(ok.test(value(text, name))).as("%s = %s", name, value(text, name)).isTrue();
        return text;
    }

    private static double value(String metrics, String name, String... labels) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                boolean all = true;
                for (String l : labels) {
                    all &= line.contains(l);
                }
                if (all) {
                    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        throw new AssertionError("no " + name + " in /metrics");
    }
}
