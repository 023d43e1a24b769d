package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The faults armed on one replica ({@code /sim/faults}); each generation request consumes one of each kind. The
 * {@code /v1/models} stall and {@code unhealthy} hold until cleared.
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
    }

    synchronized void clear() {
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
        if (failNext == 0 && stallNext == 0 && dropNext == 0 && compactNext == 0) {
            return FaultPlan.NONE;
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
        return new FaultPlan(fail, stall, drop, compact);
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
