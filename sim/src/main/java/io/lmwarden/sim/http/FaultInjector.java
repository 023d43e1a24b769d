package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The faults armed on one replica ({@code /sim/faults}); each generation request consumes one of each kind. The
 * {@code /v1/models} stall and {@code unhealthy} hold until cleared. Requests held by {@code holdNext} wait, before
 * their first byte, until {@code release} or a clear lets them go: a test that needs requests in flight holds them
 * for exactly as long as it needs, whatever the machine's speed. Streams armed by {@code holdEndNext} send every
 * event, then wait the same way before their end: the body's end comes after its last event, as a network may
 * deliver it, and the client has had the whole answer by then.
 */
final class FaultInjector {
    private int failNext;
    private int failStatus = 503;
    private int stallNext;
    private long stallMs;
    private int dropNext;
    private int afterChunks;
    private int compactNext;
    private boolean unhealthy;
    private long modelsStallMs;
    private int holdNext;
    private int holdEndNext;
    private final List<Runnable> held = new ArrayList<>();
    private long releasedTotal;

    synchronized void apply(JsonNode body) {
        if (body.has("failNext")) {
            failNext = nonNegative(body, "failNext");
            failStatus = body.has("status") ? body.get("status").asInt() : 503;
            if (failStatus < 400 || failStatus > 599) {
                throw new IllegalArgumentException("status: must be an HTTP error status (400-599)");
            }
        }
        if (body.has("stallNext")) {
            stallNext = nonNegative(body, "stallNext");
            stallMs = body.has("stallMs") ? nonNegative(body, "stallMs") : 1000;
        }
        if (body.has("holdNext")) {
            holdNext = nonNegative(body, "holdNext");
        }
        if (body.has("holdEndNext")) {
            holdEndNext = nonNegative(body, "holdEndNext");
        }
        if (body.has("dropNext")) {
            dropNext = nonNegative(body, "dropNext");
            afterChunks = body.has("afterChunks") ? nonNegative(body, "afterChunks") : 1;
        }
        if (body.has("compactNext")) {
            compactNext = nonNegative(body, "compactNext");
        }
        if (body.has("modelsStallMs")) {
            modelsStallMs = nonNegative(body, "modelsStallMs");
        }
        if (body.has("unhealthy")) {
            if (!body.get("unhealthy").isBoolean()) {
                throw new IllegalArgumentException("unhealthy: must be true or false");
            }
            unhealthy = body.get("unhealthy").asBoolean();
        }
        if (body.has("release")) {
            if (!body.get("release").isBoolean()) {
                throw new IllegalArgumentException("release: must be true or false");
            }
            if (body.get("release").asBoolean()) {
                release();
            }
        }
    }

    /** Keeps a held request (or a held stream's end) until it is released; {@code proceed} runs then, on the request's own context. */
    void hold(Runnable proceed) {
        synchronized (this) {
            held.add(proceed);
        }
    }

    /** Lets every held request and stream end go on, and stops holding the rest of {@code holdNext} and {@code holdEndNext}. */
    void release() {
        List<Runnable> go;
        synchronized (this) {
            go = List.copyOf(held);
            held.clear();
            holdNext = 0;
            holdEndNext = 0;
            releasedTotal += go.size();
        }
        go.forEach(Runnable::run);
    }

    void clear() {
        release();
        synchronized (this) {
            clearArmed();
        }
    }

    private void clearArmed() {
        failNext = 0;
        stallNext = 0;
        dropNext = 0;
        compactNext = 0;
        unhealthy = false;
        modelsStallMs = 0;
    }

    synchronized boolean unhealthy() {
        return unhealthy;
    }

    /** How long {@code /v1/models} waits before it answers (a slow or busy API server). */
    synchronized long modelsStallMs() {
        return modelsStallMs;
    }

    synchronized FaultPlan next() {
        if (failNext == 0 && stallNext == 0 && holdNext == 0 && dropNext == 0 && compactNext == 0 && holdEndNext == 0) {
            return FaultPlan.NONE;
        }
        boolean hold = holdNext > 0;
        if (hold) {
            holdNext--;
        }
        int fail = 0;
        long stall = 0;
        int drop = -1;
        if (failNext > 0) {
            failNext--;
            fail = failStatus;
        }
        if (stallNext > 0) {
            stallNext--;
            stall = stallMs;
        }
        if (dropNext > 0 && fail == 0) {
            dropNext--;
            drop = afterChunks;
        }
        boolean compact = compactNext > 0 && fail == 0;
        if (compact) {
            compactNext--;
        }
        boolean holdEnd = holdEndNext > 0 && fail == 0 && drop < 0;
        if (holdEnd) {
            holdEndNext--;
        }
        return new FaultPlan(fail, stall, hold, drop, compact, holdEnd);
    }

    synchronized ObjectNode describe() {
        ObjectNode o = Json.object();
        o.put("failNext", failNext);
        o.put("status", failStatus);
        o.put("stallNext", stallNext);
        o.put("stallMs", stallMs);
        o.put("dropNext", dropNext);
        o.put("afterChunks", afterChunks);
        o.put("compactNext", compactNext);
        o.put("unhealthy", unhealthy);
        o.put("modelsStallMs", modelsStallMs);
        o.put("holdNext", holdNext);
        o.put("holdEndNext", holdEndNext);
        o.put("held", held.size());
        o.put("released", releasedTotal);
        return o;
    }

    private static int nonNegative(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (!v.canConvertToInt() || v.asInt() < 0) {
            throw new IllegalArgumentException(field + ": must be a non-negative integer");
        }
        return v.asInt();
    }
}
