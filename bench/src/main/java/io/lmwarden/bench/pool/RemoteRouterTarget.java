package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.metrics.ReplicaProbe;
import io.lmwarden.bench.metrics.RouterReplicasProbe;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.time.Duration;

/**
 * A running LM Warden router (in a cluster, say): each variant switches its policy with
 * {@code PUT /api/policy}; engine counters come from its {@code /api/replicas}. Caches stay warm
 * between variants, as in the published run.
 */
public final class RemoteRouterTarget implements BenchTarget {

    private final HttpClient http;
    private final String routerUrl;
    private final String adminToken;
    private final String spillThreshold;

    public RemoteRouterTarget(HttpClient http, String routerUrl, String adminToken, String spillThreshold) {
        this.http = http;
        this.routerUrl = routerUrl.endsWith("/") ? routerUrl.substring(0, routerUrl.length() - 1) : routerUrl;
        this.adminToken = adminToken;
        this.spillThreshold = spillThreshold;
    }

    @Override
    public VariantTarget open(String policy) {
        VariantSpec variant = VariantSpec.parse(policy);
        ObjectNode body = new ObjectMapper().createObjectNode().put("policy", variant.policyForRemote())
                .put("admission", variant.admissionForRemote());
        if (spillThreshold != null) {
            body.put("spillThreshold", spillThreshold);
        }
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.PUT)
                .setAbsoluteURI(routerUrl + "/api/policy").setIdleTimeout(30_000)
                .putHeader("content-type", "application/json");
        if (adminToken != null) {
            options.putHeader("Authorization", "Bearer " + adminToken);
        }
        String answer = Await.result(http.request(options)
                .compose(req -> req.send(Buffer.buffer(body.toString())))
                .compose(resp -> resp.body().map(b -> resp.statusCode() + " " + b)), Duration.ofSeconds(30));
        if (!answer.startsWith("2")) {
            throw new IllegalStateException("PUT " + routerUrl + "/api/policy " + body + " answered HTTP " + answer
                    + (answer.startsWith("401") || answer.startsWith("403") ? " (pass --admin-token)" : ""));
        }
        ReplicaProbe probe = new RouterReplicasProbe(http, routerUrl, adminToken);
        return new VariantTarget() {
            @Override
            public String url() {
                return routerUrl;
            }

            @Override
            public ReplicaProbe probe() {
                return probe;
            }

            @Override
            public void close() {
                // the router keeps running: it is not ours
            }
        };
    }

    @Override
    public String describe() {
        return "running router " + routerUrl + " (policy switched via PUT /api/policy; caches stay warm between variants)";
    }
}
