package io.lmwarden.router.placement.reservation;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.pool.ReplicaAddress;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;

import io.lmwarden.router.placement.prefix.HeldTokens;

import java.util.List;

/**
 * One attempt of one request on one replica, from placement to its end: it holds the replica's
 * in-flight slot and the prefill the router expects there, and gives both back when it is closed.
 * Closed exactly once, by {@link #finish}, {@link #fail} or {@link #cancel}; later calls are
 * ignored, so an exchange whose paths race (client gone while the engine fails) cannot count twice.
 * Confined to the exchange's event loop.
 */
public final class Reservation {

    private final RequestFacts facts;
    private final Placement placement;
    private final ReplicaState replica;
    private final int attempt;
    private final long receivedAtNanos;
    private final long pendingPrefillTokens;
    private final List<PlacementFeedback> listeners;
    private long sentAtNanos = -1;
    private long firstByteNanos = -1;
    private boolean prefillPending;
    private boolean accepted;
    private AttemptEnd end;
    private int[] promptTokenIds;
    private HeldTokens.Held heldAtPlacement = new HeldTokens.Held(0, 0, HeldTokens.Source.ESTIMATED, -1);

    Reservation(RequestFacts facts, Placement placement, ReplicaState replica, int attempt, long receivedAtNanos,
                List<PlacementFeedback> listeners) {
        this.facts = facts;
        this.placement = placement;
        this.replica = replica;
        this.attempt = attempt;
        this.receivedAtNanos = receivedAtNanos;
        this.listeners = listeners;
        this.pendingPrefillTokens = Math.max(0, facts.shape().estimatedTokens() - placement.expectedCachedTokens());
    }

    /** Takes the replica's slot and tells the listeners. */
    void open() {
        if (placement.decision() == Decision.SPILL) {
            replica.countSpillIn();
        } else if (placement.decision() == Decision.CLIENT_PINNED) {
            replica.countClientPinned();
        }
        replica.dispatched();
        replica.prefillStarted(pendingPrefillTokens);
        prefillPending = true;
        listeners.forEach(l -> l.placed(this));
    }

    public RequestFacts facts() {
        return facts;
    }

    public Placement placement() {
        return placement;
    }

    public String replicaId() {
        return replica.id();
    }

    /** The engine rank behind a data-parallel endpoint, empty for a replica that is an endpoint of its own. */
    public java.util.OptionalInt dataParallelRank() {
        return replica.dataParallelRank();
    }

    public String endpointId() {
        return replica.endpointId();
    }

    public String replicaUrl() {
        return replica.url();
    }

    /** The replica's URL taken apart, or null when it is not a plain http(s) URL. */
    public ReplicaAddress replicaAddress() {
        return replica.address();
    }

    /** 1 for the first choice, 2 for the retry after it failed. */
    public int attempt() {
        return attempt;
    }

    public long receivedAtNanos() {
        return receivedAtNanos;
    }

    /** When the request went upstream, -1 before. */
    public long sentAtNanos() {
        return sentAtNanos;
    }

    /** When the first response byte came back, -1 when none did. */
    public long firstByteNanos() {
        return firstByteNanos;
    }

    public boolean accepted() {
        return accepted;
    }

    public boolean closed() {
        return end != null;
    }

    /** The upstream request is on its way: the router's own share of the time ends here. */
    public void sent(long nanos) {
        if (sentAtNanos < 0) {
            sentAtNanos = nanos;
        }
    }

    /**
     * The first byte of the answer arrived: the prefill is no longer ahead of anyone there. A 2xx
     * answer means the engine accepted the request, so the replica now holds its prompt.
     */
    public void firstByte(long nanos, int status) {
        if (end != null || firstByteNanos >= 0) {
            return;
        }
        firstByteNanos = nanos;
        releasePrefill();
        if (status >= 200 && status < 300) {
            accepted = true;
            listeners.forEach(l -> l.accepted(this));
        }
    }

    /**
     * The token ids the engine returned ({@code return_token_ids}): the prompt's and the reply's; told to the
     * listeners at once, before the client has the end of the answer (and so before its next step).
     */
    public void tokenIds(int[] prompt, int[] output) {
        promptTokenIds = prompt;
        if (prompt != null && end == null) {
            listeners.forEach(l -> l.tokenIds(this, prompt, output));
        }
    }

    /** What the replica held of the prompt when the attempt was placed there, and by which source. */
    public HeldTokens.Held heldAtPlacement() {
        return heldAtPlacement;
    }

    public void heldAtPlacement(HeldTokens.Held held) {
        heldAtPlacement = held;
    }

    /** The prompt's token ids the engine returned, or null. */
    public int[] promptTokenIds() {
        return promptTokenIds;
    }

    public void finish(int status, boolean completed, long cachedTokens, long promptTokens, long outputTokens) {
        close(AttemptEnd.finished(status, completed, cachedTokens, promptTokens, outputTokens));
    }

    /** Nothing useful came back; {@code retried} when the exchange tries another replica next. */
    public void fail(int status, String outcome, boolean retried) {
        close(AttemptEnd.failed(status, outcome, retried));
    }

    /** Failed after part of the answer reached the client (a drop, a silence). */
    public void fail(int status, String outcome, long cachedTokens, long promptTokens, long outputTokens) {
        close(AttemptEnd.failed(status, outcome, cachedTokens, promptTokens, outputTokens));
    }

    public void cancel(long cachedTokens, long promptTokens, long outputTokens) {
        close(AttemptEnd.cancelled(cachedTokens, promptTokens, outputTokens));
    }

    private void close(AttemptEnd how) {
        if (end != null) {
            return;
        }
        end = how;
        releasePrefill();
        replica.finished();
        if (how.how() == AttemptEnd.How.FAILED && !accepted) {
            replica.countFailure();
        }
        listeners.forEach(l -> l.ended(this, how));
    }

    private void releasePrefill() {
        if (prefillPending) {
            prefillPending = false;
            replica.prefillDone(pendingPrefillTokens);
        }
    }
}
