package io.lmwarden.router.placement.admission;

/**
 * The newcomers' share of the room that frees while steps of sessions in progress wait: after every
 * {@value #IN_PROGRESS_PER_NEWCOMER} steps of sessions in progress admitted from the queue while newcomers waited, the
 * head of the newcomers' lane goes first. Without it the newcomers' lane stands still for as long as sessions in
 * progress keep queueing, and every newcomer behind its head inherits that wait (issue 37: 88-92 % of the newcomers'
 * tail was waited behind other newcomers). Why 2 to 1: steps of sessions in progress are about 60 % of the steps that
 * queue on the reference workload (127 of 216 at 32 sessions), so two admissions in three keep their lane draining
 * and their bound ({@code queueWaitBound}, over the budget there) is reached little more often (18-27 steps per run
 * against 13-16, bench/results/2026-12-08-newcomer-share), while the newcomers' lane moves at a third of the pace at
 * the worst. Letting a newcomer past the bound go before every one of them instead sent seven times as many over the
 * budget and the engines thrashed. Not thread-safe: the controller's lock guards it.
 */
final class NewcomerShare {

    /** Steps of sessions in progress admitted from the queue, while newcomers waited, per newcomer given the next turn. */
    static final int IN_PROGRESS_PER_NEWCOMER = 2;

    private int sinceNewcomer;

    /** Whether the head of the newcomers' lane goes before the sessions in progress now. */
    boolean newcomersTurn() {
        return sinceNewcomer >= IN_PROGRESS_PER_NEWCOMER;
    }

    /** A queued step was admitted ({@code newcomersWaiting}: newcomers were still waiting behind it). */
    void admitted(boolean inProgress, boolean newcomersWaiting) {
        if (!inProgress) {
            sinceNewcomer = 0;
        } else if (newcomersWaiting) {
            sinceNewcomer++;
        }
    }
}
