package io.lmwarden.sim;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The preStop of a simulated replica pod (the operator runs it as {@code java -cp /app/lmw-sim.jar
 * io.lmwarden.sim.AwaitIdle …}): returns once the engine reports no request running or waiting on a few
 * reads in a row, or at the deadline. The same wait as the vLLM pods' Python preStop, with the same flags:
 * {@code --metrics-url URL --settle-seconds S --quiet-reads N --interval-seconds I --deadline-seconds D}.
 * The settle time first lets the routers see the endpoint terminating and stop sending to it.
 * Exits 0 in every case: a preStop that fails only delays the pod's stop.
 */
public final class AwaitIdle {
    private static final List<String> GAUGES = List.of("vllm:num_requests_running", "vllm:num_requests_waiting");

    private final URI metrics;
    private final Duration settle;
    private final int quietReads;
    private final Duration interval;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    AwaitIdle(URI metrics, Duration settle, int quietReads, Duration interval) {
        this.metrics = metrics;
        this.settle = settle;
        this.quietReads = quietReads;
        this.interval = interval;
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> flags = flags(args);
        AwaitIdle wait = new AwaitIdle(URI.create(flags.get("--metrics-url")), seconds(flags, "--settle-seconds"),
                Integer.parseInt(flags.get("--quiet-reads")), seconds(flags, "--interval-seconds"));
        boolean idle = wait.await(System.nanoTime() + seconds(flags, "--deadline-seconds").toNanos());
        System.out.println(idle ? "engine idle" : "deadline reached with requests in the engine");
    }

    /** @return true when the engine went idle (or stopped listening), false at the deadline */
    boolean await(long deadlineNanos) throws InterruptedException {
        sleepUntil(deadlineNanos, settle);
        int quiet = 0;
        while (System.nanoTime() < deadlineNanos) {
            try {
                quiet = requestsInEngine() == 0 ? quiet + 1 : 0;
            } catch (ConnectException e) {
                return true; // nothing listens: no request can be in flight
            } catch (IOException | RuntimeException e) {
                quiet = 0;
            }
            if (quiet >= quietReads) {
                return true;
            }
            sleepUntil(deadlineNanos, interval);
        }
        return false;
    }

    /** Running + waiting over every engine (one series of each gauge per engine label). */
    double requestsInEngine() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metrics + " answered " + response.statusCode());
        }
        double total = 0;
        for (String line : response.body().split("\n")) {
            for (String gauge : GAUGES) {
                if (line.startsWith(gauge) && line.length() > gauge.length()
                        && (line.charAt(gauge.length()) == '{' || line.charAt(gauge.length()) == ' ')) {
                    String rest = line.charAt(gauge.length()) == '{' ? line.substring(line.lastIndexOf('}') + 1) : line.substring(gauge.length());
                    total += Double.parseDouble(rest.trim().split("\\s+")[0]);
                }
            }
        }
        return total;
    }

    private static void sleepUntil(long deadlineNanos, Duration pause) throws InterruptedException {
        long nanos = Math.min(pause.toNanos(), deadlineNanos - System.nanoTime());
        if (nanos > 0) {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        }
    }

    private static Duration seconds(Map<String, String> flags, String name) {
        return Duration.ofNanos(Math.round(Double.parseDouble(flags.get(name)) * 1e9));
    }

    private static Map<String, String> flags(String[] args) {
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            flags.put(args[i], args[i + 1]);
        }
        for (String required : List.of("--metrics-url", "--settle-seconds", "--quiet-reads", "--interval-seconds", "--deadline-seconds")) {
            if (!flags.containsKey(required)) {
                throw new IllegalArgumentException("AwaitIdle needs " + required);
            }
        }
        return flags;
    }
}
