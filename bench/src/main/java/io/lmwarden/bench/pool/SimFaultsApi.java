package io.lmwarden.bench.pool;

import io.lmwarden.bench.workload.ScheduledFault;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Arms a fault on a simulated replica through its {@code POST /sim/faults} (a kill: its crash fault). */
final class SimFaultsApi {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private SimFaultsApi() {
    }

    /** A drain, through the router's admin API (clustered routers share it): what happened, for the progress line. */
    static String drain(String routerUrl, String replicaId) {
        return drainCall(routerUrl, replicaId, "POST", "drained");
    }

    /** The drain taken back ({@code DELETE /api/replicas/{id}/drain}): the replica takes new sessions again. */
    static String undrain(String routerUrl, String replicaId) {
        return drainCall(routerUrl, replicaId, "DELETE", "undrained");
    }

    private static String drainCall(String routerUrl, String replicaId, String method, String done) {
        String url = routerUrl + "/api/replicas/" + replicaId + "/drain";
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? done + " " + replicaId + " through " + routerUrl + ": " + r.body()
                    : method + " " + url + " answered " + r.statusCode() + " " + r.body();
        } catch (IOException e) {
            return method + " " + url + " failed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** What happened, for the progress line. */
    static String arm(String replicaUrl, ScheduledFault fault) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(replicaUrl + "/sim/faults"))
                    .timeout(Duration.ofSeconds(10)).header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(fault.simFaultsBody())).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return (fault.kind() == ScheduledFault.Kind.KILL ? "crashed " : "armed on ") + replicaUrl;
            }
            return "POST " + replicaUrl + "/sim/faults answered " + r.statusCode() + " " + r.body() + " (is it a simulator"
                    + (fault.kind() == ScheduledFault.Kind.KILL ? " process of its own?)" : "?)");
        } catch (IOException e) {
            return "POST " + replicaUrl + "/sim/faults failed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
