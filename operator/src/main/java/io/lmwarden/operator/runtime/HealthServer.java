package io.lmwarden.operator.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The operator's HTTP endpoints: {@code /healthz} (liveness: the process serves), {@code /readyz}
 * (whatever the caller decides readiness is), {@code /metrics} (Prometheus text format).
 */
public final class HealthServer implements AutoCloseable {
    private final HttpServer server;

    public HealthServer(String host, int port, BooleanSupplier ready, PrometheusMeterRegistry registry) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lmw-operator-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/healthz", exchange -> respond(exchange, 200, "text/plain", "ok\n"));
        server.createContext("/readyz", exchange -> {
            boolean isReady = ready.getAsBoolean();
            respond(exchange, isReady ? 200 : 503, "text/plain", isReady ? "ready\n" : "not ready\n");
        });
        server.createContext("/metrics", exchange ->
                respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                byte[] error = "only GET is supported\n".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, error.length);
                exchange.getResponseBody().write(error);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }
}
