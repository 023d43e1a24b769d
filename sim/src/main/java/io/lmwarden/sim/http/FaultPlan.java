package io.lmwarden.sim.http;

/** What fault injection does to one generation request: fail with a status, stall, or drop mid-stream. */
record FaultPlan(int failStatus, long stallMs, int dropAfterChunks) {
    static final FaultPlan NONE = new FaultPlan(0, 0, -1);
}
