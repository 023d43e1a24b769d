package io.lmwarden.bench.pool;

import io.lmwarden.bench.workload.ScheduledFault;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Arms a fault on a simulated replica through its {@code POST /sim/faults}. */
final class SimFaultsApi {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private SimFaultsApi() {
    }

    /** What happened, for the progress line. */
    static String arm(String replicaUrl, ScheduledFault fault) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(replicaUrl + "/sim/faults"))
                    .timeout(Duration.ofSeconds(10)).header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(fault.simFaultsBody())).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? "armed on " + replicaUrl : "POST " + replicaUrl + "/sim/faults answered " + r.statusCode()
                    + " (is it a simulator?)";
        } catch (IOException e) {
            return "POST " + replicaUrl + "/sim/faults failed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
