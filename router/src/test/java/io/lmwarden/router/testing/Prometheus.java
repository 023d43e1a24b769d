package io.lmwarden.router.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.common.net.LoopbackPorts;
import io.lmwarden.common.process.ChildProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A real Prometheus server (the {@code prometheus} binary, Debian's package or any other) on
 * loopback, scraping what a test lists, queried through its HTTP API. Closing stops it and deletes
 * its config and TSDB.
 *
 * <p>To check a new metric against it: scrape the router ({@link Target}), make the traffic, {@link #awaitScrapes}
 * and {@link #query} a PromQL expression; a result is a map from each series' labels to its value.
 */
public final class Prometheus implements AutoCloseable {

    /** Where to find the binary: {@code $PROMETHEUS}, else {@code prometheus} on the PATH. */
    public static final String BINARY_ENV = "PROMETHEUS";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One scrape target: host:port of a /metrics endpoint and the labels Prometheus adds to its series. */
    public record Target(String job, String hostPort, Map<String, String> labels) {
    }

    /** A series of an instant vector: its labels (without {@code __name__}) and value. */
    public record Sample(Map<String, String> labels, double value) {
    }

    private final ChildProcess process;
    private final Path dir;
    private final String url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Prometheus(ChildProcess process, Path dir, String url) {
        this.process = process;
        this.dir = dir;
        this.url = url;
    }

    /** The binary, or why there is none (for a skip message). */
    public static Optional<Path> binary() {
        String env = System.getenv(BINARY_ENV);
        if (env != null && !env.isBlank()) {
            return Optional.of(Path.of(env)).filter(Files::isExecutable);
        }
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(d, "prometheus");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    public static String version(Path binary) {
        return ChildProcess.run(List.of(binary.toString(), "--version"), null, Duration.ofSeconds(30)).output().lines().findFirst()
                .orElse("?");
    }

    /** Starts Prometheus scraping the targets every {@code interval}; returns once it answers /-/ready. */
    public static Prometheus start(Path binary, List<Target> targets, Duration interval) throws IOException {
        Path dir = Files.createTempDirectory("lmw-prometheus-");
        Files.writeString(dir.resolve("prometheus.yml"), config(targets, interval));
        int port = LoopbackPorts.free();
        ChildProcess p = ChildProcess.command(List.of(binary.toString(),
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--log.level=warn"))
                .name("prometheus").log(dir.resolve("prometheus.log")).start();
        Prometheus prom = new Prometheus(p, dir, "http://127.0.0.1:" + port);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.alive()) {
                String log = prom.log();
                prom.close();
                throw new IllegalStateException("prometheus exited:\n" + log);
            }
            try {
                if (prom.get("/-/ready").statusCode() == 200) {
                    return prom;
                }
            } catch (IOException e) {
                // not listening yet
            }
            RouterUnderTest.sleep(100);
        }
        String log = prom.log();
        prom.close();
        throw new IllegalStateException("prometheus not ready within 30 s:\n" + log);
    }

    /** A scrape config of one job per distinct {@link Target#job()}, each target with its own labels. */
    static String config(List<Target> targets, Duration interval) {
        Map<String, List<Target>> byJob = new LinkedHashMap<>();
        targets.forEach(t -> byJob.computeIfAbsent(t.job(), j -> new ArrayList<>()).add(t));
        StringBuilder y = new StringBuilder("global:\n  scrape_interval: " + interval.toMillis() + "ms\n"
                + "  scrape_timeout: " + interval.toMillis() + "ms\n  evaluation_interval: 1m\nscrape_configs:\n");
        byJob.forEach((job, list) -> {
            y.append("  - job_name: ").append(quote(job)).append("\n    static_configs:\n");
            for (Target t : list) {
                y.append("      - targets: [").append(quote(t.hostPort())).append("]\n        labels: {");
                y.append(String.join(", ", t.labels().entrySet().stream().map(e -> e.getKey() + ": " + quote(e.getValue())).toList()));
                y.append("}\n");
            }
        });
        return y.toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Instant query at the server's now. */
    public List<Sample> query(String promql) {
        return query(promql, null);
    }

    /** Instant query at a given time (Unix seconds), e.g. the last scrape, so no rate is extrapolated past it. */
    public List<Sample> query(String promql, Double atSeconds) {
        String q = "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)
                + (atSeconds == null ? "" : "&time=" + atSeconds);
        JsonNode body;
        try {
            HttpResponse<String> r = get(q);
            body = JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!"success".equals(body.path("status").asText())) {
            throw new AssertionError("Prometheus rejected " + promql + ": " + body.path("errorType").asText() + " "
                    + body.path("error").asText());
        }
        JsonNode data = body.path("data");
        List<Sample> out = new ArrayList<>();
        if ("scalar".equals(data.path("resultType").asText())) {
            out.add(new Sample(Map.of(), Double.parseDouble(data.path("result").get(1).asText())));
            return out;
        }
        for (JsonNode series : data.path("result")) {
            Map<String, String> labels = new TreeMap<>();
            series.path("metric").fields().forEachRemaining(e -> {
                if (!e.getKey().equals("__name__")) {
                    labels.put(e.getKey(), e.getValue().asText());
                }
            });
            out.add(new Sample(labels, Double.parseDouble(series.path("value").get(1).asText())));
        }
        out.sort(Comparator.comparing(s -> s.labels().toString()));
        return out;
    }

    /** Waits until every target of the job has been scraped successfully n more times than now. */
    public void awaitScrapes(String job, int n, Duration timeout) {
        // up is 1 for a successful scrape: its sum over time counts them, per target; the least scraped target decides.
        String promql = "min(sum_over_time(up{job=\"" + job + "\"}[1h]))";
        double before = scalarOrZero(promql);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (scalarOrZero(promql) >= before + n) {
                return;
            }
            RouterUnderTest.sleep(100);
        }
        throw new AssertionError("job " + job + " not scraped " + n + " more times within " + timeout
                + "; targets: " + targets() + "\n" + log());
    }

    /** Unix time of the job's last scrape (the latest of its targets). */
    public double lastScrape(String job) {
        return query("max(timestamp(up{job=\"" + job + "\"}))").get(0).value();
    }

    private double scalarOrZero(String promql) {
        List<Sample> r = query(promql);
        return r.isEmpty() ? 0 : r.get(0).value();
    }

    /** The targets' health as Prometheus reports it, for failure messages. */
    public String targets() {
        try {
            return get("/api/v1/targets?state=active").body();
        } catch (IOException e) {
            return e.toString();
        }
    }

    private HttpResponse<String> get(String path) throws IOException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    public String log() {
        return process.output();
    }

    /** Runs {@code promtool check metrics} on an exposition; returns its output, empty when it found nothing. */
    public static String checkMetrics(Path promtool, String exposition) {
        return ChildProcess.run(List.of(promtool.toString(), "check", "metrics"), exposition, Duration.ofSeconds(30)).output();
    }

    @Override
    public void close() {
        process.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }
}
