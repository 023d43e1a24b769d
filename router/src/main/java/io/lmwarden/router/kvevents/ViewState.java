package io.lmwarden.router.kvevents;

/** How far a replica's cache view can be trusted right now. */
public enum ViewState {
    /** Not connected (yet, or again) for less than {@code staleAfter}. */
    CONNECTING,
    /** Connected and in sequence: the view follows the engine. */
    LIVE,
    /** Catching up on missed batches through the replay socket. */
    SYNCING,
    /** Disconnected, or silent while requests were sent there, for longer than {@code staleAfter}: use estimates. */
    STALE
}
