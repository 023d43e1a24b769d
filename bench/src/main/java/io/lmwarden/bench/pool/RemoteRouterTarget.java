package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.metrics.ReplicaProbe;
import io.lmwarden.bench.metrics.RouterReplicasProbe;
import io.lmwarden.bench.workload.ScheduledFault;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.time.Duration;
import java.util.List;

/**
 * A running LM Warden router, or several routers of one cluster: each variant switches the policy of
 * every one with {@code PUT /api/policy}; engine counters come from the first one's {@code /api/replicas}.
 * With several routers, agents' steps go to them in turn. Caches stay warm between variants, as in the
 * published run.
 */
public final class RemoteRouterTarget implements BenchTarget {

    private final HttpClient http;
    private final List<String> routerUrls;
    private final String routerUrl;
    private final String adminToken;
    private final String spillThreshold;
    private final List<String> replicaAdmin;

    public RemoteRouterTarget(HttpClient http, String routerUrl, String adminToken, String spillThreshold) {
        this(http, List.of(routerUrl), adminToken, spillThreshold);
    }

    /** {@code routerUrls}: the routers of one cluster (or one router); steps go to them in turn. */
    public RemoteRouterTarget(HttpClient http, List<String> routerUrls, String adminToken, String spillThreshold) {
        this(http, routerUrls, adminToken, spillThreshold, List.of());
    }

    private RemoteRouterTarget(HttpClient http, List<String> routerUrls, String adminToken, String spillThreshold,
                               List<String> replicaAdmin) {
        this.replicaAdmin = replicaAdmin.stream().map(u -> u.endsWith("/") ? u.substring(0, u.length() - 1) : u).toList();
        if (routerUrls.isEmpty()) {
            throw new IllegalArgumentException("--target needs at least one router URL");
        }
        this.http = http;
        this.routerUrls = routerUrls.stream().map(u -> u.endsWith("/") ? u.substring(0, u.length() - 1) : u).toList();
        this.routerUrl = this.routerUrls.get(0);
        this.adminToken = adminToken;
        this.spillThreshold = spillThreshold;
    }

    /**
     * Scheduled faults go to these base URLs (replica i of a fault is the i-th), each a simulator's fault API
     * ({@code URL/sim/faults}), instead of the replica URLs the router's {@code /api/replicas} lists: for replicas the
     * bench reaches at other addresses than the router does, or in another order.
     */
    public RemoteRouterTarget withReplicaAdmin(List<String> urls) {
        return new RemoteRouterTarget(http, routerUrls, adminToken, spillThreshold, urls);
    }

    @Override
    public VariantTarget open(String policy) {
        VariantSpec variant = VariantSpec.parse(policy);
        ObjectNode body = new ObjectMapper().createObjectNode().put("policy", variant.policyForRemote())
                .put("admission", variant.admissionForRemote());
        if (spillThreshold != null) {
            body.put("spillThreshold", spillThreshold);
        }
        // The policy is each router's own setting: every member of a cluster is switched.
        for (String url : routerUrls) {
            putPolicy(url, body);
        }
        ReplicaProbe probe = new RouterReplicasProbe(http, routerUrl, adminToken);
        return new VariantTarget() {
            @Override
            public String url() {
                return routerUrl;
            }

            @Override
            public List<String> urls() {
                return routerUrls;
            }

            @Override
            public ReplicaProbe probe() {
                return probe;
            }

            @Override
            public String inject(ScheduledFault fault) {
                String url = adminUrl(fault.replica());
                if (url == null) {
                    return replicaAdmin.isEmpty() ? "no replica " + fault.replica() + " in " + routerUrl + "/api/replicas"
                            : "no replica " + fault.replica() + " in --replica-admin (" + replicaAdmin.size() + " URLs)";
                }
                if (fault.kind() == ScheduledFault.Kind.DRAIN) {
                    return "a drain against --target is not scheduled by the bench: POST " + routerUrl + "/api/replicas/<id>/drain";
                }
                // A kill reaches a simulator process as its crash fault; a real vLLM has no fault API (kill its pod yourself).
                return SimFaultsApi.arm(url, fault);
            }

            @Override
            public void close() {
                // the router keeps running: it is not ours
            }
        };
    }

    private void putPolicy(String url, ObjectNode body) {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.PUT)
                .setAbsoluteURI(url + "/api/policy").setIdleTimeout(30_000)
                .putHeader("content-type", "application/json");
        if (adminToken != null) {
            options.putHeader("Authorization", "Bearer " + adminToken);
        }
        String answer = null;
        // A router that does not answer within 30 s (restarting, busy) is asked again before the run fails.
        for (int attempt = 1; answer == null; attempt++) {
            try {
                answer = Await.result(http.request(options)
                        .compose(req -> req.send(Buffer.buffer(body.toString())))
                        .compose(resp -> resp.body().map(b -> resp.statusCode() + " " + b)), Duration.ofSeconds(30));
            } catch (IllegalStateException e) {
                if (attempt == 3) {
                    throw new IllegalStateException("PUT " + url + "/api/policy: " + e.getMessage() + " (3 attempts)", e);
                }
            }
        }
        if (!answer.startsWith("2")) {
            throw new IllegalStateException("PUT " + url + "/api/policy " + body + " answered HTTP " + answer
                    + (answer.startsWith("401") || answer.startsWith("403") ? " (pass --admin-token)" : ""));
        }
    }

    private String adminUrl(int index) {
        if (!replicaAdmin.isEmpty()) {
            return index < replicaAdmin.size() ? replicaAdmin.get(index) : null;
        }
        return replicaUrl(index);
    }

    /** URL of the index-th replica of /api/replicas (in the router's order), or null. */
    private String replicaUrl(int index) {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(routerUrl + "/api/replicas")
                .setIdleTimeout(30_000);
        if (adminToken != null) {
            options.putHeader("Authorization", "Bearer " + adminToken);
        }
        try {
            String body = Await.result(http.request(options).compose(req -> req.send()).compose(resp -> resp.body()).map(Buffer::toString),
                    Duration.ofSeconds(30));
            var replicas = new ObjectMapper().readTree(body).path("replicas");
            return index < replicas.size() ? replicas.get(index).path("url").asText(null) : null;
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    public String describe() {
        return (routerUrls.size() == 1 ? "running router " + routerUrl
                : routerUrls.size() + " running routers " + String.join(", ", routerUrls) + " (steps sent to them in turn)")
                + " (policy switched via PUT /api/policy; caches stay warm between variants)"
                + (replicaAdmin.isEmpty() ? "" : "; faults sent to " + replicaAdmin);
    }
}
