package io.lmwarden.router.placement.admission;

import java.util.HashMap;
import java.util.Map;

/**
 * One scan of the queue: the replicas that steps ahead wait for (those behind never take that room: backfill goes
 * elsewhere), whose lane holds each, and why the last step that could not be placed waits. Not thread-safe: one scan's,
 * under the controller's lock.
 */
final class HeldRooms {

    private final Map<String, WaitCause> holders = new HashMap<>();
    private WaitCause lastMiss = WaitCause.RUNNING;

    boolean isHeld(String replica) {
        return holders.containsKey(replica);
    }

    /** A step that must wait holds the replica it waits for; the first holder of a replica keeps it. */
    void hold(String replica, boolean inProgress) {
        holders.putIfAbsent(replica, inProgress ? WaitCause.SESSIONS_AHEAD : WaitCause.NEWCOMERS_AHEAD);
    }

    /** What a step behind waits behind when the room it wants is held. */
    WaitCause holderOf(String replica) {
        return holders.getOrDefault(replica, WaitCause.RUNNING);
    }

    int size() {
        return holders.size();
    }

    /** What a step behind waits behind when every replica is held: a session in progress if any holds one. */
    WaitCause holdersOfAll() {
        return holders.containsValue(WaitCause.SESSIONS_AHEAD) ? WaitCause.SESSIONS_AHEAD : WaitCause.NEWCOMERS_AHEAD;
    }

    /** Why the step just looked at could not be placed. */
    void missed(WaitCause cause) {
        lastMiss = cause;
    }

    WaitCause lastMiss() {
        return lastMiss;
    }
}
