package io.lmwarden.router.placement.admission;

import java.util.function.LongPredicate;

/**
 * A session resident on a replica through another router of the cluster, as that router reports it: how
 * many KV blocks its working set takes, and every {@link #CHECKPOINT_STRIDE}-th chained block hash of its
 * prompt. Chained hashes make a shared prefix visible from those few: two prompts with the same hash at
 * block i share blocks 0..i, so a block shared with another resident (a common system prompt) is counted
 * once, give or take one stride (in the safe direction: the overlap is never overestimated).
 *
 * @param session     the session (model and key, as admission names it); empty for a peer's whole share on the
 *                    replica when it reports no sessions (an older router during a rolling upgrade)
 * @param checkpoints the prompt's chained hashes at blocks STRIDE−1, 2·STRIDE−1, …
 * @param running     a step of the session is in flight through that router: the session is not paused, wherever
 *                    else it is resident (absent from an older router's report: false)
 */
public record PeerResident(String session, String replica, long blocks, long[] checkpoints, boolean running) {

    /**
     * 64 blocks = 1,024 tokens: a 12k-token working set travels as 11 hashes, and a shared prefix is found to
     * within 63 blocks (about 3 % of a 38k-token replica's budget), never more than it is.
     */
    public static final int CHECKPOINT_STRIDE = 64;

    public PeerResident {
        checkpoints = checkpoints == null ? new long[0] : checkpoints;
    }

    /** A resident with no step in flight. */
    public PeerResident(String session, String replica, long blocks, long[] checkpoints) {
        this(session, replica, blocks, checkpoints, false);
    }

    static PeerResident of(String session, String replica, WorkingSet ws) {
        return of(session, replica, ws, false);
    }

    static PeerResident of(String session, String replica, WorkingSet ws, boolean running) {
        long[] hashes = ws.blockHashes();
        long[] cp = new long[hashes.length / CHECKPOINT_STRIDE];
        for (int j = 0; j < cp.length; j++) {
            cp[j] = hashes[(j + 1) * CHECKPOINT_STRIDE - 1];
        }
        return new PeerResident(session, replica, ws.blocks(), cp, running);
    }

    /** A peer's share of the replica without per-session detail: nothing in it is known to be shared. */
    public static PeerResident opaque(String replica, long blocks) {
        return new PeerResident("", replica, blocks, new long[0]);
    }

    /** Blocks of this prompt's prefix known to be held already: up to the last checkpoint {@code held} accepts. */
    long sharedPrefixBlocks(LongPredicate held) {
        for (int j = checkpoints.length - 1; j >= 0; j--) {
            if (held.test(checkpoints[j])) {
                return (long) (j + 1) * CHECKPOINT_STRIDE;
            }
        }
        return 0;
    }
}
