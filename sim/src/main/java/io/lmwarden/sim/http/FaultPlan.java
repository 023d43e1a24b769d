package io.lmwarden.sim.http;

/**
 * What fault injection does to one generation request: fail with a status, stall, drop mid-stream,
 * or write its SSE fields without the optional space after the colon ({@code data:{…}}).
 */
record FaultPlan(int failStatus, long stallMs, int dropAfterChunks, boolean compactSse) {
    static final FaultPlan NONE = new FaultPlan(0, 0, -1, false);
}
