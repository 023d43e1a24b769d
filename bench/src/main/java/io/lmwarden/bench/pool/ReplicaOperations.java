package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.bench.metrics.ReplicaProbe;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Day-2 operations on separate-process replicas, done as the operator does them to vLLM pods: a replica that goes is
 * drained through the router first ({@code POST /api/replicas/{id}/drain}, every clustered router hears of it) and its
 * process is stopped only once the router reports it {@code drained}, i.e. nothing is in flight there (what the pod's
 * preStop waits for, bounded); a replica that comes (a new image, a scale-up) is taken into rotation once it answers,
 * and counts as Ready when the router says so in {@code GET /api/replicas}. Each phase goes to {@link PoolEvents}.
 */
final class ReplicaOperations {

    /** The operator's default drain bound for a replica (rollout.drainTimeout), workload time. */
    static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);
    /** A replica the router does not report ready this long after its process answered fails the operation. */
    static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    /** How often the router's view is read, workload time (the router's own scrape is 100 ms). */
    static final Duration POLL = Duration.ofMillis(500);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final SimProcessPool processes;
    private final Supplier<String> adminUrl;
    private final ReplicaProbe probe;

    /**
     * @param adminUrl where the router's admin API answers now (the first router in rotation)
     * @param probe    the pool's counters, read once more before a process stops so its last figures are kept
     */
    ReplicaOperations(SimProcessPool processes, Supplier<String> adminUrl, ReplicaProbe probe) {
        this.processes = processes;
        this.adminUrl = adminUrl;
        this.probe = probe;
    }

    /** A rolling upgrade: each replica (or the one given) replaced in turn, the next only once the last is Ready. */
    String upgrade(int only, PoolEvents events) {
        String what = only < 0 ? "upgrade replicas" : "upgrade replica " + only;
        if (only >= processes.size()) {
            return "no replica " + only + " (the pool has " + processes.size() + ")";
        }
        events.record(what, PoolEvents.BEGIN, "");
        for (int i = 0; i < processes.size(); i++) {
            if (only < 0 || i == only) {
                drainAndStop(i, events);
                start(i, events, true);
            }
        }
        events.record(what, PoolEvents.END, "");
        return what + " done";
    }

    /** Scale down: drained, then stopped; the router sees its endpoint refuse and keeps it out of rotation. */
    String remove(int i, PoolEvents events) {
        return onOne("remove replica ", i, events, () -> drainAndStop(i, events));
    }

    /** Scale up: the listed replica's process starts, and the router takes it once it answers. */
    String add(int i, PoolEvents events) {
        return onOne("add replica ", i, events, () -> start(i, events, false));
    }

    /** One replica's operation between its begin and end events. */
    private String onOne(String verb, int i, PoolEvents events, Runnable operation) {
        if (i >= processes.size()) {
            return "no replica " + i + " (the pool has " + processes.size() + ")";
        }
        String what = verb + i;
        events.record(what, PoolEvents.BEGIN, "");
        operation.run();
        events.record(what, PoolEvents.END, "");
        return what + " done";
    }

    private void drainAndStop(int i, PoolEvents events) {
        String id = processes.ids().get(i);
        events.record(id, PoolEvents.DRAINING, SimFaultsApi.drain(adminUrl.get(), id));
        double deadline = events.now() + DRAIN_TIMEOUT.toSeconds();
        String state = drainState(id);
        while (!"drained".equals(state) && events.now() < deadline) {
            events.sleep(POLL);
            state = drainState(id);
        }
        events.record(id, PoolEvents.DRAINED, "drained".equals(state) ? "nothing in flight there"
                : "drain bound of " + DRAIN_TIMEOUT.toSeconds() + " s reached (state " + state + "); stopping anyway");
        try {
            // Its final counters, read before the process and its figures go.
            Await.result(probe.read(), Duration.ofSeconds(30));
        } catch (IllegalStateException e) {
            // the reading before the stop is a nicety; the stage's own readings still count
        }
        events.record(id, PoolEvents.STOPPED, processes.stop(i));
    }

    /** @param undrain the replica was drained before its process went (an upgrade): take the drain back once it answers */
    private void start(int i, PoolEvents events, boolean undrain) {
        String id = processes.ids().get(i);
        events.record(id, PoolEvents.STARTED, processes.startAgain(i) + " (warmed up: it answers)");
        if (undrain) {
            events.record(id, "undrained", SimFaultsApi.undrain(adminUrl.get(), id));
        }
        double deadline = events.now() + READY_TIMEOUT.toSeconds();
        while (!ready(id)) {
            if (events.now() > deadline) {
                events.record(id, "not ready", "the router did not report it ready within " + READY_TIMEOUT.toSeconds() + " s");
                return;
            }
            events.sleep(POLL);
        }
        events.record(id, PoolEvents.READY, "the router reports it ready");
    }

    private String drainState(String id) {
        return row(id).map(r -> r.path("drain").asText("none")).orElse("gone");
    }

    private boolean ready(String id) {
        return row(id).map(r -> r.path("ready").asBoolean(false)).orElse(false);
    }

    /** The replica's row of the router's {@code GET /api/replicas}; empty when it is not there or the router did not answer. */
    private Optional<JsonNode> row(String id) {
        try {
            HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(adminUrl.get() + "/api/replicas"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                return Optional.empty();
            }
            for (JsonNode row : MAPPER.readTree(r.body()).path("replicas")) {
                if (id.equals(row.path("id").asText())) {
                    return Optional.of(row);
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
