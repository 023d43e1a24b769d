package io.lmwarden.router.placement;

/** Why a request went where it went; sent back as {@code X-LMW-Decision}. */
public enum Decision {
    /** A session seen for the first time (or whose home is gone), placed by load. */
    NEW,
    /** A later step that stayed on its home replica. */
    STICKY,
    /** The home replica was over the spill threshold: placed elsewhere and re-pinned there. */
    SPILL,
    /** The client named the replica ({@code X-LMW-Replica} or {@code X-data-parallel-rank}). */
    CLIENT_PINNED,
    /** The first choice failed before any byte was sent; this is the retry. */
    FALLBACK,
    /** The session's home is draining: placed by the policy elsewhere and re-pinned there. */
    DRAIN
}
