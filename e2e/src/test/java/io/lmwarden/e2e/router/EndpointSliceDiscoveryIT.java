package io.lmwarden.e2e.router;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.lmwarden.e2e.support.JarProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The router jar, in its own process, discovers replicas from EndpointSlices served by fabric8's CRUD
 * mock API server (this process; Vert.x 4) and routes to simulator replicas (a third process). An
 * endpoint turning unready and a slice disappearing stop new requests to that replica at once; an endpoint that
 * terminates but still serves drains: its streams finish, its sessions move as DRAIN.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EndpointSliceDiscoveryIT {

    private static final String NS = "agents";
    private static final String SERVICE = "qwen-replicas";
    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";

    private static KubernetesMockServer apiServer;
    private static KubernetesClient kube;
    private static JarProcess sims;
    private static JarProcess router;
    private static int simBasePort;
    private static String routerUrl;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        apiServer = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        apiServer.init(InetAddress.getLoopbackAddress(), 0);
        kube = apiServer.createClient();

        simBasePort = JarProcess.freePort();
        sims = JarProcess.start("lmw.sim.jar", List.of("--replicas", "4", "--output-length", "fixed", "--port", Integer.toString(simBasePort),
                "--time-scale", "20"), Map.of());
        for (int i = 0; i < 4; i++) {
            sims.awaitHttp200("http://127.0.0.1:" + (simBasePort + i) + "/health", Duration.ofSeconds(30));
        }
        for (int i = 0; i < 3; i++) {
            kube.resource(slice(i, true)).create();
        }

        int routerPort = JarProcess.freePort();
        routerUrl = "http://127.0.0.1:" + routerPort;
        Map<String, String> env = new HashMap<>();
        env.put("KUBERNETES_MASTER", kube.getConfiguration().getMasterUrl());
        env.put("KUBERNETES_TRUST_CERTIFICATES", "true");
        env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
        env.put("LMW_SCRAPE_INTERVAL", "200ms");
        router = JarProcess.start("lmw.router.jar", List.of("--port", Integer.toString(routerPort), "--host", "127.0.0.1",
                "--k8s-service", SERVICE, "--namespace", NS), env);
        router.awaitHttp200(routerUrl + "/readyz", Duration.ofSeconds(60));
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

    private static EndpointSlice slice(int i, boolean ready) {
        return slice(i, ready, ready, false);
    }

    private static EndpointSlice slice(int i, boolean ready, boolean serving, boolean terminating) {
        return new EndpointSliceBuilder()
                .withNewMetadata().withName(SERVICE + "-" + i).withNamespace(NS)
                .addToLabels("kubernetes.io/service-name", SERVICE).endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("http").withPort(simBasePort + i).withProtocol("TCP").endPort()
                .withEndpoints(new EndpointBuilder().withAddresses("127.0.0.1")
                        .withNewConditions().withReady(ready).withServing(serving).withTerminating(terminating).endConditions()
                        .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName("qwen-vllm-" + i).withNamespace(NS).build())
                        .build())
                .build();
    }

    private static HttpResponse<String> chat(String session) throws Exception {
        String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hello " + session + "\"}]}";
        return HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/v1/chat/completions"))
                .header("content-type", "application/json").header("X-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String replicaOf(HttpResponse<String> r) {
        return r.headers().firstValue("x-lmw-replica").orElse(null);
    }

    @Test
    @Order(1)
    void replicasComeFromEndpointSlicesAndLeaveWhenTheyTurnUnreadyOrDisappear() throws Exception {
        String replicas = HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/api/replicas")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(replicas).contains("\"id\":\"qwen-vllm-0\"", "\"id\":\"qwen-vllm-1\"", "\"id\":\"qwen-vllm-2\"")
                .contains("endpointslices(" + NS + "/" + SERVICE + ")");

        Map<String, String> home = new HashMap<>();
        for (int s = 0; s < 9; s++) {
            HttpResponse<String> r = chat("sess-" + s);
            assertThat(r.statusCode()).isEqualTo(200);
            home.put("sess-" + s, replicaOf(r));
        }
        assertThat(new HashSet<>(home.values())).containsExactlyInAnyOrder("qwen-vllm-0", "qwen-vllm-1", "qwen-vllm-2");

        // qwen-vllm-1 turns unready: its sessions are re-placed, nothing new goes there.
        kube.resource(slice(1, false)).update();
        awaitReplicaReady("qwen-vllm-1", false);
        List<String> after = new ArrayList<>();
        for (int s = 0; s < 9; s++) {
            HttpResponse<String> r = chat("sess-" + s);
            assertThat(r.statusCode()).isEqualTo(200);
            after.add(replicaOf(r));
            String expected = home.get("sess-" + s).equals("qwen-vllm-1") ? "NEW" : "STICKY";
            assertThat(r.headers().firstValue("x-lmw-decision")).contains(expected);
        }
        assertThat(after).doesNotContain("qwen-vllm-1");

        // qwen-vllm-2's slice is deleted: it leaves the pool.
        kube.resource(slice(2, true)).delete();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String list;
        do {
            Thread.sleep(100);
            list = HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/api/replicas")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } while (list.contains("qwen-vllm-2") && System.nanoTime() < deadline);
        assertThat(list).doesNotContain("qwen-vllm-2");
        Set<String> used = new HashSet<>();
        for (int s = 0; s < 6; s++) {
            HttpResponse<String> r = chat("late-" + s);
            assertThat(r.statusCode()).isEqualTo(200);
            used.add(replicaOf(r));
        }
        assertThat(used).containsExactly("qwen-vllm-0");
    }

    /**
     * Runs after the test above (qwen-vllm-0 is the only ready replica then): qwen-vllm-3 joins, takes six sessions, and
     * turns terminating (ready=false, serving=true) while they stream: it drains, the streams finish, each session's next
     * step moves to qwen-vllm-0 as DRAIN. Then it stops serving and its slice goes.
     */
    @Test
    @Order(2)
    void aTerminatingEndpointDrains() throws Exception {
        kube.resource(slice(3, true)).create();
        awaitReplicaReady("qwen-vllm-3", true);
        Map<String, String> home = new HashMap<>();
        for (int s = 0; s < 6; s++) {
            HttpResponse<String> r = chat("drain-" + s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            home.put("drain-" + s, replicaOf(r));
        }
        List<String> onThree = home.entrySet().stream().filter(e -> e.getValue().equals("qwen-vllm-3")).map(Map.Entry::getKey).toList();
        assertThat(onThree).as("sessions on the new, emptiest replica").isNotEmpty();

        List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
        for (String s : onThree) {
            streams.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return chat(s, 3000, true);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        awaitRow("qwen-vllm-3", "\"inFlight\":" + onThree.size() + ",");
        kube.resource(slice(3, false, true, true)).update();
        awaitRow("qwen-vllm-3", "\"drain\":\"draining\"");
        for (CompletableFuture<HttpResponse<String>> f : streams) {
            HttpResponse<String> r = f.get(120, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).as("a stream in flight on the draining replica finished").contains("data: [DONE]");
            assertThat(replicaOf(r)).isEqualTo("qwen-vllm-3");
        }
        awaitRow("qwen-vllm-3", "\"drain\":\"drained\"");
        for (String s : home.keySet()) {
            HttpResponse<String> r = chat(s, 4, false);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(replicaOf(r)).isEqualTo("qwen-vllm-0");
            assertThat(r.headers().firstValue("x-lmw-decision")).as("step 2 of %s", s).contains(onThree.contains(s) ? "DRAIN" : "STICKY");
        }
        kube.resource(slice(3, false, false, true)).update();
        awaitRow("qwen-vllm-3", "\"drain\":\"none\"");
        kube.resource(slice(3, false)).delete();
    }

    private static HttpResponse<String> chat(String session, int maxTokens, boolean stream) throws Exception {
        String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello " + session + "\"}]}";
        return HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/v1/chat/completions"))
                .header("content-type", "application/json").header("X-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitRow(String id, String fragment) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String needle = "\"id\":\"" + id + "\"";
        String row = "";
        while (System.nanoTime() < deadline) {
            String body = HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/api/replicas")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            int at = body.indexOf(needle);
            row = at < 0 ? "" : body.substring(at, body.indexOf('}', at));
            if (row.contains(fragment)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(id + " never showed " + fragment + "; last row: " + row + "; router output:\n" + router.output());
    }

    private static void awaitReplicaReady(String id, boolean ready) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String needle = "\"id\":\"" + id + "\"";
        while (System.nanoTime() < deadline) {
            String body = HTTP.send(HttpRequest.newBuilder(URI.create(routerUrl + "/api/replicas")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            int at = body.indexOf(needle);
            if (at >= 0 && body.substring(at, body.indexOf('}', at)).contains("\"ready\":" + ready)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(id + " never became ready=" + ready + "; router output:\n" + router.output());
    }
}
