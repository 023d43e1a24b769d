package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.common.api.ApiDialect;

/**
 * Why a request, or one attempt of it, got no answer to relay: the status the client gets in each API, whether
 * another replica may be tried (while nothing of an answer has reached the client, within the retry budget),
 * and the label of {@code lmw_request_errors_total{kind}} and of the attempt's outcome in the request log.
 * The one place that says which status a failure gets.
 */
public enum FailureKind {

    /** The body is not what the API takes (malformed JSON, a wrong type): the client's to fix. */
    BAD_REQUEST("bad_request", 400),
    /** The client pinned a replica that does not exist, or a rank out of range. */
    BAD_PIN("bad_pin", 400),
    /** No replica is ready, none is left to retry on, or the client-pinned one is not ready. */
    NO_REPLICA("no_replica", 503),
    /** The admission queue is full. Saturated, not broken: OpenAI's rate-limit status, Anthropic's "overloaded". */
    QUEUE_FULL("queue_full", 429, 529, false),
    /** Waited the whole {@code queueTimeout} for admission; answered like {@link #QUEUE_FULL}. */
    QUEUE_TIMEOUT("queue_timeout", 429, 529, false),
    /** The router is out of sockets (EMFILE, EADDRNOTAVAIL): another replica would not help. */
    ROUTER_SOCKETS("router_sockets", 503),
    /** The replica's connections were all in use ({@code maxConnectionsPerReplica}) and none came free in time. */
    CONNECTION_CAP("connection_cap", 503, 503, true),
    /** No connection to the replica (refused, or timed out). */
    CONNECT("connect", 502, 502, true),
    /** The request could not be sent on the connection. */
    SEND("send", 502, 502, true),
    /** The replica answered 502 before anything reached the client: a broken gateway in front of it. */
    UPSTREAM_502("upstream_502", 502, 502, true),
    /** The replica answered 503 before anything reached the client: overloaded or draining. */
    UPSTREAM_503("upstream_503", 503, 503, true),
    /** The replica answered 504 before anything reached the client: a gateway's timeout. */
    UPSTREAM_504("upstream_504", 504, 504, true),
    /** The replica dropped the response after its head but before any byte went on to the client: as good as no answer. */
    DROP_BEFORE_FIRST_BYTE("drop_before_first_byte", 502, 502, true),
    /** The replica sent nothing for {@code streamIdleTimeout}: retried while nothing reached the client, else the stream ends. */
    IDLE_TIMEOUT("idle_timeout", 504, 504, true),
    /** The replica dropped the response mid-stream: the output is incomplete, and part of it reached the client. */
    MIDSTREAM_DROP("midstream_drop", 502),
    /**
     * The replica answered an error status after the queue's keep-alives had sent a 200 stream head: the error
     * can only be the stream's last event. Labelled by the replica's status ({@code upstream_400}, …).
     */
    UPSTREAM_ERROR_IN_STREAM("upstream_", 502);

    private final String label;
    private final int openAiStatus;
    private final int anthropicStatus;
    private final boolean retryElsewhere;

    FailureKind(String label, int status) {
        this(label, status, status, false);
    }

    FailureKind(String label, int openAiStatus, int anthropicStatus, boolean retryElsewhere) {
        this.label = label;
        this.openAiStatus = openAiStatus;
        this.anthropicStatus = anthropicStatus;
        this.retryElsewhere = retryElsewhere;
    }

    /** The status the client gets in its API. */
    public int status(ApiDialect dialect) {
        return dialect != null && dialect.anthropic() ? anthropicStatus : openAiStatus;
    }

    /** Whether another replica may get the request, when nothing of an answer has reached the client yet. */
    public boolean retryElsewhere() {
        return retryElsewhere;
    }

    /** The metric's and the outcome's label. */
    public String label() {
        return label;
    }

    /** The label of one failure: the kind's own, but for {@link #UPSTREAM_ERROR_IN_STREAM} the replica's status appended. */
    public String label(int upstreamStatus) {
        return this == UPSTREAM_ERROR_IN_STREAM ? label + upstreamStatus : label;
    }

    /** A status that another replica may not give: 502, 503 and 504; null for any other. */
    public static FailureKind ofUpstreamStatus(int status) {
        return switch (status) {
            case 502 -> UPSTREAM_502;
            case 503 -> UPSTREAM_503;
            case 504 -> UPSTREAM_504;
            default -> null;
        };
    }

    public static FailureKind of(NoReplicaAvailableException e) {
        return e.status() == 400 ? BAD_PIN : NO_REPLICA;
    }

    public static FailureKind of(AdmissionController.Rejection r) {
        return switch (r.reason()) {
            case QUEUE_FULL -> QUEUE_FULL;
            case QUEUE_TIMEOUT, PREDICTED_WAIT -> QUEUE_TIMEOUT;
            case NO_REPLICA -> NO_REPLICA;
        };
    }
}
