package io.lmwarden.router.stats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.lmwarden.router.placement.reservation.AttemptEnd;
import io.lmwarden.router.placement.reservation.PlacementFeedback;
import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.SessionKey;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One line per request when it ends (its last attempt): time, API, model, session hash, tenant,
 * replica, decision, attempt, status, TTFB, tokens and outcome. Never prompt text, never a raw
 * session key (which may be an e-mail in {@code user}). A JSON object per line with
 * {@code --log-format json}, {@code key=value} pairs otherwise.
 */
public final class RequestLog implements PlacementFeedback {

    public static final String LOGGER = "io.lmwarden.router.requests";
    /** Lines waiting for stderr at most (a few seconds of a busy router's lines); beyond, dropped and counted. */
    public static final int QUEUED_LINES = 65_536;
    private static final JsonFactory JSON = new JsonFactory();

    private final boolean json;
    private final Consumer<String> sink;

    public RequestLog(boolean json, Consumer<String> sink) {
        this.json = json;
        this.sink = sink;
    }

    /**
     * Lines through {@code writer} (stderr, from a thread of its own: the event loop that ends a request never
     * waits for the log). The logger {@value #LOGGER} only switches them: below INFO, nothing is written.
     */
    public static RequestLog to(LineWriter writer, boolean json) {
        Logger log = Logger.getLogger(LOGGER);
        return new RequestLog(json, line -> {
            if (log.isLoggable(Level.INFO)) {
                writer.offer(line);
            }
        });
    }

    @Override
    public void ended(Reservation r, AttemptEnd end) {
        if (!end.retried()) {
            sink.accept(line(r, end, System.currentTimeMillis()));
        }
    }

    String line(Reservation r, AttemptEnd end, long epochMillis) {
        RequestFacts f = r.facts();
        double ttfbMs = r.firstByteNanos() < 0 ? -1 : Math.round((r.firstByteNanos() - r.receivedAtNanos()) / 1e4) / 100.0;
        String ts = Instant.ofEpochMilli(epochMillis).toString();
        String session = SessionKey.displayHash(f.sessionKey().value());
        if (!json) {
            return ts + " INFO requests request api=" + f.dialect().path() + " model=" + f.model() + " session=" + session
                    + " tenant=" + (f.tenant().present() ? f.tenant().id() : "-") + " replica=" + r.replicaId()
                    + " decision=" + r.placement().decision() + " attempt=" + r.attempt() + " status=" + end.status()
                    + " ttfb_ms=" + ttfbMs + " cached_tokens=" + end.cachedTokens() + " prompt_tokens=" + end.promptTokens()
                    + " output_tokens=" + end.outputTokens() + " outcome=" + end.outcome();
        }
        StringWriter w = new StringWriter(320);
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            // The keys every other log line has (LogOutput): a collector parses them all alike.
            g.writeStringField("time", ts);
            g.writeStringField("level", "INFO");
            g.writeStringField("logger", "requests");
            g.writeStringField("message", "request");
            g.writeStringField("api", f.dialect().path());
            g.writeStringField("model", f.model());
            g.writeStringField("session", session);
            g.writeStringField("sessionKeySource", f.sessionKey().source().label());
            if (f.tenant().present()) {
                g.writeStringField("tenant", f.tenant().id());
            } else {
                g.writeNullField("tenant");
            }
            g.writeStringField("replica", r.replicaId());
            g.writeStringField("decision", r.placement().decision().name());
            g.writeNumberField("attempt", r.attempt());
            g.writeBooleanField("stream", f.stream());
            g.writeNumberField("status", end.status());
            g.writeNumberField("ttfbMs", ttfbMs);
            g.writeNumberField("cachedTokens", end.cachedTokens());
            g.writeNumberField("promptTokens", end.promptTokens());
            g.writeNumberField("outputTokens", end.outputTokens());
            g.writeStringField("outcome", end.outcome());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}
