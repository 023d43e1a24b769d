package io.lmwarden.router.advisor;

import io.lmwarden.router.placement.reservation.AttemptEnd;
import io.lmwarden.router.placement.reservation.PlacementFeedback;
import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.session.PromptShape;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The recent steps the advisor replays, as they ended: each one's replica, prompt and cached tokens and its prompt's
 * chained keys. Bounded twice: by age (a window of workload time) and by the keys kept (so a pool of 100k-token agent
 * sessions keeps ~16 MB at most, whatever the traffic). A listener on placement's feedback seam; it only records.
 */
public final class StepTrace implements PlacementFeedback {

    /**
     * Router prompt blocks per key: 4 × 64 characters, ~64 tokens. Coarser keys keep 4× more history in the same memory;
     * a step's last partial group is never counted as served, so the model under-counts by ~32 tokens a step on average.
     */
    public static final int BLOCKS_PER_KEY = 4;
    /** The window replayed, in workload time. */
    public static final Duration WINDOW_WORKLOAD = Duration.ofMinutes(30);
    /** At most this many keys (8 B each) are kept: ~130k tokens of prompt per step for 1,000 steps. */
    public static final long KEYS_KEPT = 2_000_000;

    /** Sessions whose last step is remembered, to tell which keys of their next one are its reply. */
    static final int SESSIONS_KEPT = 4096;

    /** A session's last step: where it ran, how many keys its prompt had, the last of them, and what the engine generated. */
    private record Last(String replica, int keys, long lastKey, long outputTokens) {
    }

    private final int blocksPerKey;
    private final java.util.LinkedHashMap<String, Last> sessions = new java.util.LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, Last> eldest) {
            return size() > SESSIONS_KEPT;
        }
    };
    private final long windowMillis;
    private final long maxKeys;
    private final ArrayDeque<TracedStep> steps = new ArrayDeque<>();
    private long keys;

    /** @param window the wall-clock window: the workload-time window divided by the time scale */
    public StepTrace(int blocksPerKey, Duration window, long maxKeys) {
        if (blocksPerKey < 1) {
            throw new IllegalArgumentException("a key covers at least one block, got " + blocksPerKey);
        }
        this.blocksPerKey = blocksPerKey;
        this.windowMillis = Math.max(1, window.toMillis());
        this.maxKeys = maxKeys;
    }

    public int blocksPerKey() {
        return blocksPerKey;
    }

    public long windowMillis() {
        return windowMillis;
    }

    @Override
    public void ended(Reservation r, AttemptEnd end) {
        if (!end.ok() || end.retried()) {
            return;
        }
        PromptShape shape = r.facts().shape();
        // The order the engine saw: a step that waited in admission's queue reached it when it was sent, not when it came.
        long at = r.sentAtNanos() >= 0 ? r.sentAtNanos() : r.receivedAtNanos();
        long sentAt = System.currentTimeMillis() - (System.nanoTime() - at) / 1_000_000;
        long prompt = end.promptTokens() >= 0 ? end.promptTokens() : shape.estimatedTokens();
        record(traced(r.facts().sessionKey().value(), r.placement().replica().id(), sentAt, prompt, end.cachedTokens(),
                end.outputTokens(), shape.blockHashes()), System.currentTimeMillis());
    }

    /**
     * A step of {@code session} as the replay needs it. When it continues the session's last step on the same replica, the
     * keys right after that step's prompt are its reply, which the engine cached as it generated it: the replay counts
     * them as held where the router's keys alone would see new text.
     */
    synchronized TracedStep traced(String session, String replica, long atMillis, long promptTokens, long cachedTokens,
                                   long outputTokens, long[] blockHashes) {
        long[] keys = keys(blockHashes, blocksPerKey);
        Last last = sessions.get(session);
        int replyKeys = 0;
        int replyFrom = 0;
        if (last != null && last.replica().equals(replica) && last.keys() > 0 && keys.length > last.keys()
                && keys[last.keys() - 1] == last.lastKey() && last.outputTokens() > 0 && blockHashes.length > 0) {
            double tokensPerKey = (double) promptTokens * blocksPerKey / blockHashes.length;
            replyFrom = last.keys();
            replyKeys = (int) Math.min(keys.length - replyFrom, Math.floor(last.outputTokens() / tokensPerKey));
        }
        sessions.put(session, new Last(replica, keys.length, keys.length == 0 ? 0 : keys[keys.length - 1], outputTokens));
        return new TracedStep(atMillis, replica, promptTokens, cachedTokens, blockHashes.length, keys, replyFrom, replyKeys);
    }

    /** One key per whole group of {@code blocksPerKey} chained block hashes: the group's last hash covers its prefix. */
    static long[] keys(long[] blockHashes, int blocksPerKey) {
        long[] keys = new long[blockHashes.length / blocksPerKey];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = blockHashes[(k + 1) * blocksPerKey - 1];
        }
        return keys;
    }

    public synchronized void record(TracedStep step, long nowMillis) {
        steps.addLast(step);
        keys += step.keys().length;
        trim(nowMillis);
    }

    /** The steps of the window in the order they were sent (steps end out of order; the replay needs them as they went). */
    public List<TracedStep> recent(long nowMillis) {
        List<TracedStep> copy;
        synchronized (this) {
            trim(nowMillis);
            copy = new ArrayList<>(steps);
        }
        copy.sort(Comparator.comparingLong(TracedStep::atMillis));
        return copy;
    }

    private void trim(long nowMillis) {
        while (!steps.isEmpty() && (keys > maxKeys || nowMillis - steps.peekFirst().atMillis() > windowMillis)) {
            keys -= steps.removeFirst().keys().length;
        }
    }
}
