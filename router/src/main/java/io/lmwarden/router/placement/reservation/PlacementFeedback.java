package io.lmwarden.router.placement.reservation;

/**
 * Told what became of each placement, attempt by attempt, in this order: {@link #placed} once,
 * {@link #accepted} at most once (the engine took the request: the first byte of a 2xx answer), and
 * {@link #ended} exactly once. Calls come from the exchange's event loop and must not block.
 * Placement's own learning (the prefix index, prefill rates) listens here first; stats and
 * admission control hang further listeners off {@link Reservations#listen}.
 */
public interface PlacementFeedback {

    default void placed(Reservation r) {
    }

    default void accepted(Reservation r) {
    }

    /** The engine's token ids of the prompt and of the reply, when the router asked for them; before {@link #ended}. */
    default void tokenIds(Reservation r, int[] prompt, int[] output) {
    }

    default void ended(Reservation r, AttemptEnd end) {
    }
}
