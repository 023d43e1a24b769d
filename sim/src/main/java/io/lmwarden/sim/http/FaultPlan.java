package io.lmwarden.sim.http;

/**
 * What fault injection does to one generation request: fail with a status, stall for a time, hold until released,
 * drop mid-stream, write its SSE fields without the optional space after the colon ({@code data:{…}}), or hold the
 * end of its stream, after the last event, until released.
 */
record FaultPlan(int failStatus, long stallMs, boolean hold, int dropAfterChunks, boolean compactSse, boolean holdEnd) {
    static final FaultPlan NONE = new FaultPlan(0, 0, false, -1, false, false);
}
