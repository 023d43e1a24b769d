package io.lmwarden.router.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One simulated replica's own fault API ({@code /sim/faults}) over HTTP: the same for a replica in this JVM and one in
 * a process of its own. A test that needs requests in flight holds them there: {@link #holdNext} arms the hold,
 * {@link #awaitHeld} polls until the replica has them (before their first byte), the test acts, {@link #release} lets
 * them go. They stay in flight for exactly as long as the test needs, whatever the machine's speed.
 */
public final class SimFaults {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Http http = new Http();
    private final String replicaUrl;

    public SimFaults(String replicaUrl) {
        this.replicaUrl = replicaUrl;
    }

    /** Replica {@code i} of the pool. */
    public static SimFaults of(SimPool sims, int i) {
        return new SimFaults(sims.url(i));
    }

    /** The pool's replica the router knows as {@code replicaId} ({@code sim-i}, as {@link SimPool#routerEntries} names it). */
    public static SimFaults of(SimPool sims, String replicaId) {
        return of(sims, Integer.parseInt(replicaId.substring("sim-".length())));
    }

    /** Arms faults with the JSON {@code POST /sim/faults} takes; returns the replica's faults after. */
    public JsonNode arm(String json) {
        Http.Reply r = http.post(replicaUrl + "/sim/faults", json, Map.of());
        assertThat(r.status()).as("POST %s/sim/faults %s: %s", replicaUrl, json, r.body()).isEqualTo(200);
        return parse(r.body());
    }

    /** The faults armed and the held requests, as {@code GET /sim/faults} reports them. */
    public JsonNode state() {
        return parse(http.get(replicaUrl + "/sim/faults").body());
    }

    /** The replica's next {@code n} generation requests wait before their first byte until {@link #release}. */
    public void holdNext(int n) {
        arm("{\"holdNext\":" + n + "}");
    }

    /** Polls until the replica holds at least {@code n} requests. */
    public void awaitHeld(int n) {
        awaitState(n + " requests held by " + replicaUrl, s -> s.path("held").asInt() >= n);
    }

    /** Lets every held request go on and stops holding the rest of {@code holdNext}. */
    public void release() {
        arm("{\"release\":true}");
    }

    /** Polls the replica's fault state until {@code condition} holds of it (an armed fault used up, say). */
    public void awaitState(String what, java.util.function.Predicate<JsonNode> condition) {
        JsonNode[] last = new JsonNode[1];
        Await.until(what, () -> condition.test(last[0] = state()), () -> String.valueOf(last[0]));
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("/sim/faults answered no JSON: " + body, e);
        }
    }
}
