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

    private final int blocksPerKey;
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
        record(new TracedStep(sentAt, r.placement().replica().id(), prompt, end.cachedTokens(), shape.blocks(),
                keys(shape.blockHashes(), blocksPerKey)), System.currentTimeMillis());
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
