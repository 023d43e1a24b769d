package io.lmwarden.e2e.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.lmwarden.e2e.support.RouterJar;
import io.lmwarden.e2e.support.SimulatorJar;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The router jar, in its own process, discovers replicas from EndpointSlices served by fabric8's CRUD
 * mock API server (this process; Vert.x 4) and routes to simulator replicas (a third process). An
 * endpoint turning unready and a slice disappearing stop new requests to that replica at once; an endpoint that
 * terminates but still serves drains: its streams finish, its sessions move as DRAIN.
 *
 * <p>The processes are shared by the tests, not what they set up: each test starts from no slice at all and
 * names its pods after itself, so sessions the router pinned in another test, or a slice another test left behind
 * when it failed, are not in its way, and the tests run in any order.
 */
@Tag("processes")
class EndpointSliceDiscoveryIT {

    private static final String NS = "agents";
    private static final String SERVICE = "qwen-replicas";
    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    /** Only turns a hang into a failure that says what never happened; nothing here is timed. */
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static KubernetesMockServer apiServer;
    private static KubernetesClient kube;
    private static SimulatorJar sims;
    private static RouterJar router;
    private static String routerUrl;

    /** This test's pods are {@code <pods>-0} … {@code <pods>-3}, on simulator replicas 0 … 3. */
    private String pods;

    @BeforeAll
    static void start() throws Exception {
        apiServer = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        apiServer.init(InetAddress.getLoopbackAddress(), 0);
        kube = apiServer.createClient();

        sims = SimulatorJar.start(4, List.of("--output-length", "fixed", "--time-scale", "20"));

        Map<String, String> env = new HashMap<>();
        env.put("KUBERNETES_MASTER", kube.getConfiguration().getMasterUrl());
        env.put("KUBERNETES_TRUST_CERTIFICATES", "true");
        env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
        // The router times a replica's /metrics out after 4 scrape intervals (1 s at least, 5 s at most) and takes it out
        // of rotation, pins and all, after three in a row: at 200 ms, three 1 s timeouts of a starved simulator at load
        // ~28 turned a STICKY step into NEW. Liveness checks are not what this test checks.
        env.put("LMW_SCRAPE_INTERVAL", "1250ms");
        router = RouterJar.start(List.of("--host", "127.0.0.1", "--k8s-service", SERVICE, "--namespace", NS), env);
        routerUrl = router.url();
        router.process().awaitHttp200(routerUrl + "/api/replicas", DEADLINE);
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
        if (sims != null) {
            sims.close();
        }
        if (kube != null) {
            kube.close();
        }
        if (apiServer != null) {
            apiServer.destroy();
        }
    }

    /** No slice, no replica in the router, nothing held in a simulator: whatever a test before this one left. */
    @BeforeEach
    void noReplicas(TestInfo test) throws Exception {
        pods = test.getTestMethod().orElseThrow().getName();
        for (String url : sims.urls()) {
            HttpResponse<String> cleared = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/sim/faults")).DELETE().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(cleared.statusCode()).as("DELETE %s/sim/faults", url).isBetween(200, 299);
        }
        kube.discovery().v1().endpointSlices().inNamespace(NS).list().getItems().forEach(s -> kube.resource(s).delete());
        awaitReplicas("no replica left", rows -> rows.isEmpty());
    }

    @Test
    void replicasComeFromEndpointSlicesAndLeaveWhenTheyTurnUnreadyOrDisappear() throws Exception {
        for (int i = 0; i < 3; i++) {
            kube.resource(slice(i, true)).create();
        }
        for (int i = 0; i < 3; i++) {
            awaitRow(pod(i), "ready", row -> row.path("ready").asBoolean());
        }
        assertThat(replicasJson().toString()).contains("endpointslices(" + NS + "/" + SERVICE + ")");

        Map<String, String> home = new HashMap<>();
        for (int s = 0; s < 9; s++) {
            HttpResponse<String> r = chat("sess-" + s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            home.put("sess-" + s, replicaOf(r));
        }
        assertThat(new HashSet<>(home.values())).containsExactlyInAnyOrder(pod(0), pod(1), pod(2));

        // Pod 1 turns unready: its sessions are re-placed, nothing new goes there.
        kube.resource(slice(1, false)).update();
        awaitRow(pod(1), "ready=false", row -> !row.path("ready").asBoolean());
        List<String> after = new ArrayList<>();
        for (int s = 0; s < 9; s++) {
            HttpResponse<String> r = chat("sess-" + s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            after.add(replicaOf(r));
            String expected = home.get("sess-" + s).equals(pod(1)) ? "NEW" : "STICKY";
            assertThat(r.headers().firstValue("x-lmw-decision")).as("sess-%d", s).contains(expected);
        }
        assertThat(after).doesNotContain(pod(1));

        // Pod 2's slice is deleted: it leaves the pool.
        kube.resource(slice(2, true)).delete();
        awaitReplicas(pod(2) + " gone", rows -> row(rows, pod(2)).isEmpty());
        Set<String> used = new HashSet<>();
        for (int s = 0; s < 6; s++) {
            HttpResponse<String> r = chat("late-" + s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            used.add(replicaOf(r));
        }
        assertThat(used).containsExactly(pod(0));
    }

    /**
     * Pod 0 serves alone; pod 3 joins, takes some of six new sessions, and turns terminating (ready=false,
     * serving=true) while streams of its sessions are in flight, held by its simulator before their first byte: it
     * drains for as long as they are held, they finish once let go, it is drained, and each session's next step moves
     * to pod 0 as DRAIN. Then it stops serving and its slice goes.
     */
    @Test
    void aTerminatingEndpointDrains() throws Exception {
        kube.resource(slice(0, true)).create();
        awaitRow(pod(0), "ready", row -> row.path("ready").asBoolean());
        kube.resource(slice(3, true)).create();
        awaitRow(pod(3), "ready", row -> row.path("ready").asBoolean());
        Map<String, String> home = new HashMap<>();
        for (int s = 0; s < 6; s++) {
            HttpResponse<String> r = chat("drain-" + s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            home.put("drain-" + s, replicaOf(r));
        }
        List<String> onThree = home.entrySet().stream().filter(e -> e.getValue().equals(pod(3))).map(Map.Entry::getKey).toList();
        assertThat(onThree).as("sessions on the new replica").isNotEmpty();

        int held = onThree.size();
        fault(3, "{\"holdNext\":" + held + "}");
        List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
        for (String s : onThree) {
            streams.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return chat(s, 4, true);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        awaitHeld(3, held);
        awaitRow(pod(3), "inFlight=" + held, row -> row.path("inFlight").asInt() == held);
        kube.resource(slice(3, false, true, true)).update();
        awaitRow(pod(3), "draining", row -> row.path("drain").asText().equals("draining"));
        assertThat(streams).as("held, so still in flight while it drains").noneMatch(CompletableFuture::isDone);

        fault(3, "{\"release\":true}");
        for (CompletableFuture<HttpResponse<String>> f : streams) {
            HttpResponse<String> r = f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).as("a stream in flight on the draining replica finished").contains("data: [DONE]");
            assertThat(replicaOf(r)).isEqualTo(pod(3));
        }
        awaitRow(pod(3), "drained", row -> row.path("drain").asText().equals("drained"));
        for (String s : home.keySet()) {
            HttpResponse<String> r = chat(s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(replicaOf(r)).isEqualTo(pod(0));
            assertThat(r.headers().firstValue("x-lmw-decision")).as("step 2 of %s", s).contains(onThree.contains(s) ? "DRAIN" : "STICKY");
        }
        kube.resource(slice(3, false, false, true)).update();
        awaitRow(pod(3), "drain none", row -> row.path("drain").asText().equals("none"));
        kube.resource(slice(3, false)).delete();
        awaitReplicas(pod(3) + " gone", rows -> row(rows, pod(3)).isEmpty());
    }

    private String pod(int i) {
        return pods + "-" + i;
    }

    private EndpointSlice slice(int i, boolean ready) {
        return slice(i, ready, ready, false);
    }

    /** Pod i's slice: its one endpoint is simulator replica i, at the port that replica bound. */
    private EndpointSlice slice(int i, boolean ready, boolean serving, boolean terminating) {
        return new EndpointSliceBuilder()
                .withNewMetadata().withName(SERVICE + "-" + i).withNamespace(NS)
                .addToLabels("kubernetes.io/service-name", SERVICE).endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("http").withPort(sims.port(i)).withProtocol("TCP").endPort()
                .withEndpoints(new EndpointBuilder().withAddresses("127.0.0.1")
                        .withNewConditions().withReady(ready).withServing(serving).withTerminating(terminating).endConditions()
                        .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName(pod(i)).withNamespace(NS).build())
                        .build())
                .build();
    }

    private static HttpResponse<String> chat(String session, int maxTokens, boolean stream) throws Exception {
        String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello " + session + "\"}]}";
        return HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/v1/chat/completions"))
                .header("content-type", "application/json").header("X-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String replicaOf(HttpResponse<String> r) {
        return r.headers().firstValue("x-lmw-replica").orElse(null);
    }

    /** Arms (or releases) faults on simulator replica i. */
    private static void fault(int replica, String json) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(sims.url(replica) + "/sim/faults"))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST /sim/faults %s: %s", json, r.body()).isEqualTo(200);
    }

    /** Polls until simulator replica i holds n requests. */
    private static void awaitHeld(int replica, int n) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        JsonNode faults;
        do {
            faults = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(sims.url(replica) + "/sim/faults")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            if (faults.path("held").asInt() >= n) {
                return;
            }
            Thread.sleep(10);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("simulator replica " + replica + " never held " + n + " requests; its faults: " + faults
                + "; router output:\n" + router.output());
    }

    private static JsonNode replicasJson() throws Exception {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/api/replicas")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private static Optional<JsonNode> row(JsonNode rows, String id) {
        for (JsonNode row : rows) {
            if (row.path("id").asText().equals(id)) {
                return Optional.of(row);
            }
        }
        return Optional.empty();
    }

    /** Polls the router's replica rows until they satisfy the condition. */
    private static void awaitReplicas(String what, Predicate<JsonNode> condition) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        JsonNode rows;
        do {
            rows = replicasJson().path("replicas");
            if (condition.test(rows)) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("never " + what + "; replicas: " + rows + "; router output:\n" + router.output());
    }

    /** Polls until the router shows a row for this replica that satisfies the condition. */
    private static void awaitRow(String id, String what, Predicate<JsonNode> condition) throws Exception {
        awaitReplicas(id + " " + what, rows -> row(rows, id).filter(condition).isPresent());
    }
}
