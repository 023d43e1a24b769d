package io.lmwarden.e2e.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.e2e.support.JarProcess;
import io.lmwarden.e2e.support.RouterJar;
import io.lmwarden.e2e.support.SimulatorJar;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three router processes (the shipped jar) clustered over loopback (JGroups TCP on 127.0.0.1, a
 * static member list) in front of four simulated replicas (a fifth process). 12 sessions step
 * through the routers in turn while router 0 is killed with SIGKILL: only requests in flight on it
 * fail (the client sends them to the next router), every session stays on one replica, and a fourth
 * router started afterwards serves every existing session STICKY.
 */
@Tag("cluster")
class RouterClusterIT {

    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    private static final int SESSIONS = 12;
    private static final int STEPS = 8;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void killingOneRouterLosesOnlyItsInFlightRequestsAndPinsSurvive() throws Exception {
        List<Integer> clusterPorts = io.lmwarden.common.net.LoopbackPorts.freePairs(4);
        String members = clusterPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        List<JarProcess> routers = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        try (SimulatorJar sims = SimulatorJar.start(4, List.of("--time-scale", "20"))) {
            List<String> replicas = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                replicas.add("sim-" + i + "=" + sims.url(i));
            }
            try {
                for (int i = 0; i < 4; i++) {
                    routers.add(null);
                    urls.add(null);
                }
                for (int i = 0; i < 3; i++) {
                    startRouter(i, routers, urls, clusterPorts, members, replicas);
                }
                awaitMembers(urls.get(0), 3);

                Map<String, List<String>> where = new ConcurrentHashMap<>();
                AtomicInteger failed = new AtomicInteger();
                AtomicInteger steps = new AtomicInteger();
                AtomicBoolean zeroDead = new AtomicBoolean();
                ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
                List<Future<?>> running = new ArrayList<>();
                for (int s = 0; s < SESSIONS; s++) {
                    String session = "it-" + s;
                    int first = s % 3;
                    running.add(pool.submit(() -> {
                        int target = first;
                        for (int step = 0; step < STEPS; step++) {
                            while (true) {
                                if (target == 0 && zeroDead.get()) {
                                    target = 1;
                                }
                                try {
                                    HttpResponse<String> r = chat(urls.get(target), session, step);
                                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                                    where.computeIfAbsent(session, k -> new ArrayList<>()).add(r.headers().firstValue("x-lmw-replica").orElse(null));
                                    steps.incrementAndGet();
                                    break;
                                } catch (IOException e) {
                                    // The router died under this request: a client's next try goes to another router.
                                    failed.incrementAndGet();
                                    target = (target + 1) % 3;
                                }
                            }
                            target = (target + 1) % 3;
                        }
                        return null;
                    }));
                }
                // Mid-run: SIGKILL router 0.
                while (steps.get() < SESSIONS * STEPS / 3) {
                    Thread.sleep(5);
                }
                zeroDead.set(true);
                routers.get(0).kill();
                for (Future<?> f : running) {
                    f.get(180, TimeUnit.SECONDS);
                }
                pool.shutdown();

                assertThat(failed.get()).as("requests that failed: at most those in flight on router 0").isLessThanOrEqualTo(SESSIONS);
                for (int s = 0; s < SESSIONS; s++) {
                    List<String> homes = where.get("it-" + s);
                    assertThat(homes).hasSize(STEPS).doesNotContainNull();
                    assertThat(new HashSet<>(homes)).as("replicas of it-%d (split?)", s).hasSize(1);
                }
                assertThat(where.values().stream().map(l -> l.get(0)).collect(Collectors.toSet())).as("spread").hasSize(4);
                awaitMembers(urls.get(1), 2);

                // A fourth router joins after the kill: it knows every pin before it serves.
                startRouter(3, routers, urls, clusterPorts, members, replicas);
                for (int s = 0; s < SESSIONS; s++) {
                    HttpResponse<String> r = chat(urls.get(3), "it-" + s, STEPS);
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.headers().firstValue("x-lmw-decision")).as("decision for it-%d on the new router", s).contains("STICKY");
                    assertThat(r.headers().firstValue("x-lmw-replica")).contains(where.get("it-" + s).get(0));
                }
                System.out.printf("router cluster IT: %d steps served, %d failed with router 0 killed mid-run%n", steps.get(), failed.get());
            } finally {
                for (JarProcess r : routers) {
                    if (r != null) {
                        r.close();
                    }
                }
            }
        }
    }

    private static void startRouter(int i, List<JarProcess> routers, List<String> urls, List<Integer> clusterPorts, String members,
                                    List<String> replicas) throws Exception {
        RouterJar router = RouterJar.start(List.of("--host", "127.0.0.1",
                "--replicas", String.join(",", replicas), "--cluster", "static:" + members,
                "--cluster-port", Integer.toString(clusterPorts.get(i))), Map.of("LMW_SCRAPE_INTERVAL", "200ms"));
        routers.set(i, router.process());
        urls.set(i, router.url());
        router.process().awaitHttp200(urls.get(i) + "/readyz", Duration.ofSeconds(90));
    }

    private static HttpResponse<String> chat(String router, String session, int step) throws IOException, InterruptedException {
        String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"" + session
                + " step " + step + "\"}]}";
        return HTTP.send(HttpRequest.newBuilder(URI.create(router + "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json").header("X-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitMembers(String router, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode view = null;
        while (System.nanoTime() < deadline) {
            view = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(router + "/api/replicas")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).path("cluster");
            if (view.path("members").size() == n && view.path("agree").asBoolean()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(router + " did not see " + n + " agreeing members: " + view);
    }

}
