package io.lmwarden.operator.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class HealthServerTest {
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void servesLivenessReadinessAndPrometheusMetrics() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter.builder("operator.test.events").register(registry).increment(3);
        AtomicBoolean ready = new AtomicBoolean(false);
        try (HealthServer server = new HealthServer("127.0.0.1", 0, ready::get, registry)) {
            String base = "http://127.0.0.1:" + server.port();

            assertThat(get(base + "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(base + "/readyz").statusCode()).isEqualTo(503);
            ready.set(true);
            assertThat(get(base + "/readyz").statusCode()).isEqualTo(200);

            HttpResponse<String> metrics = get(base + "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
            assertThat(metrics.body()).contains("operator_test_events_total 3.0");

            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/healthz"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(get(base + "/healthz").statusCode()).as("still serving after a bad request").isEqualTo(200);
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
