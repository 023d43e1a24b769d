package io.lmwarden.router.placement.reservation;

import io.lmwarden.router.placement.prefix.PrefixIndexes;

/**
 * Keeps each replica's {@link PrefixIndex} true: a prompt is recorded as held only once the engine
 * accepted it (the first byte of a 2xx answer). A request the engine refused (a 400 for too many
 * {@code max_tokens}, a 404 for a model it does not serve) or that never reached it leaves nothing.
 */
final class PrefixLearning implements PlacementFeedback {

    private final PrefixIndexes indexes;

    PrefixLearning(PrefixIndexes indexes) {
        this.indexes = indexes;
    }

    @Override
    public void accepted(Reservation r) {
        indexes.accepted(r.placement().replica(), r.facts().shape());
    }
}
