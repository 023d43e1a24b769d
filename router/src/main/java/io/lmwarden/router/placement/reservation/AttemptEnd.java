package io.lmwarden.router.placement.reservation;

/**
 * How one attempt ended, as the proxy saw it.
 *
 * @param how          finished (the engine answered to the end), failed (an error, ours or the engine's) or cancelled (the client left)
 * @param status       HTTP status returned to the client (or that the attempt would have returned)
 * @param completed    the response ended normally: a stream with its completion event, a body with a status below 400
 * @param cachedTokens cached prompt tokens the engine reported, -1 when none
 * @param promptTokens prompt tokens the engine reported, -1 when none
 * @param outputTokens output tokens the engine reported, -1 when none
 * @param outcome      ok, client_cancelled, midstream_drop, idle_timeout, upstream_4xx, connect…: the label of metrics and the session log
 * @param retried      the exchange goes on with another attempt elsewhere; this one is not the request's last word
 */
public record AttemptEnd(How how, int status, boolean completed, long cachedTokens, long promptTokens, long outputTokens,
                         String outcome, boolean retried) {

    public enum How { FINISHED, FAILED, CANCELLED }

    /** The engine answered to the end; {@code completed} and the status say whether it answered well. */
    public static AttemptEnd finished(int status, boolean completed, long cachedTokens, long promptTokens, long outputTokens) {
        return new AttemptEnd(How.FINISHED, status, completed, cachedTokens, promptTokens, outputTokens,
                status < 400 ? "ok" : "upstream_" + status, false);
    }

    public static AttemptEnd failed(int status, String outcome, boolean retried) {
        return new AttemptEnd(How.FAILED, status, false, -1, -1, -1, outcome, retried);
    }

    /** Failed after part of the answer reached the client: the usage seen so far is kept. */
    public static AttemptEnd failed(int status, String outcome, long cachedTokens, long promptTokens, long outputTokens) {
        return new AttemptEnd(How.FAILED, status, false, cachedTokens, promptTokens, outputTokens, outcome, false);
    }

    public static AttemptEnd cancelled(long cachedTokens, long promptTokens, long outputTokens) {
        return new AttemptEnd(How.CANCELLED, 499, false, cachedTokens, promptTokens, outputTokens, "client_cancelled", false);
    }

    /** The engine served the request in full and well: only such attempts teach anything about speed. */
    public boolean ok() {
        return how == How.FINISHED && status < 400;
    }
}
