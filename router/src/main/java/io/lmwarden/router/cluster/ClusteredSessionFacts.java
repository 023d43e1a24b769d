package io.lmwarden.router.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.placement.admission.SessionFact;
import io.lmwarden.router.placement.admission.SessionFacts;
import org.infinispan.AdvancedCache;
import org.infinispan.commons.CacheException;
import org.infinispan.commons.IllegalLifecycleStateException;
import org.infinispan.context.Flag;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The session facts in a replicated cache (key: the session as admission names it; value: its {@link SessionFact} as
 * JSON), so that every member holds every fact and reads it from its own memory, and a member that joins receives
 * them with the pins (the initial state transfer). A write never waits: it is a conditional write sent off
 * asynchronously, retried shortly after when another member's write of the same session came first, and
 * skipped when the fact held already is at least as far ({@link SessionFact#merge}); so the cache converges to the
 * merge of everything written, whatever the order. A fact lives {@code idleTimeout} from its last write, as a pin
 * does, and the cache holds as many as the pins at most.
 */
final class ClusteredSessionFacts implements SessionFacts {

    private static final Logger LOG = Logger.getLogger(ClusteredSessionFacts.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Conditional writes lost to another member's write of the same session before this one gives up (the other stands). */
    static final int ATTEMPTS = 8;
    static final int RETRY_DELAY_MILLIS = 2;

    private final AdvancedCache<String, String> shared;
    private final AdvancedCache<String, String> local;
    private final long lifespanMillis;

    ClusteredSessionFacts(AdvancedCache<String, String> shared, Duration idleTimeout) {
        this.shared = shared;
        this.local = shared.withFlags(Flag.CACHE_MODE_LOCAL);
        this.lifespanMillis = Math.max(1, idleTimeout.toMillis());
    }

    @Override
    public Optional<SessionFact> get(String session) {
        try {
            return Optional.ofNullable(decode(local.get(session)));
        } catch (IllegalLifecycleStateException stopping) {
            return Optional.empty();
        }
    }

    @Override
    public void publish(SessionFact fact) {
        write(fact, ATTEMPTS);
    }

    private void write(SessionFact fact, int attemptsLeft) {
        String k = fact.session();
        CompletableFuture<Boolean> done;
        try {
            String current = local.get(k);
            SessionFact held = decode(current);
            if (held != null && SessionFact.merge(held, fact) == held) {
                return; // the cluster knows the session as far already
            }
            String json = encode(fact);
            done = current == null
                    ? shared.putIfAbsentAsync(k, json, lifespanMillis, TimeUnit.MILLISECONDS).thenApply(previous -> previous == null)
                    : shared.replaceAsync(k, current, json, lifespanMillis, TimeUnit.MILLISECONDS);
        } catch (IllegalLifecycleStateException stopping) {
            return;
        } catch (CacheException e) {
            LOG.fine(() -> "session fact not shared: " + e.getMessage());
            return;
        }
        done.whenComplete((written, failed) -> {
            if (failed != null) {
                // Not shared (a peer timed out, the cluster is stopping): the next step's end writes the session again.
                LOG.fine(() -> "session fact not shared: " + failed.getMessage());
            } else if (!written && attemptsLeft > 1) {
                // Another member wrote the session meanwhile: merge with what it wrote, once it is here. A write is
                // acknowledged before every backup applied it, so this member's copy may lag the one that beat ours
                // by a moment: read it again a little later, a little later each time.
                long delay = (long) RETRY_DELAY_MILLIS * (ATTEMPTS - attemptsLeft + 1);
                CompletableFuture.runAsync(() -> write(fact, attemptsLeft - 1),
                        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
            }
        });
    }

    static String encode(SessionFact fact) {
        try {
            return JSON.writeValueAsString(fact);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The fact, or null for none or for one this router cannot read (a newer router's, in a rolling upgrade). */
    static SessionFact decode(String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, SessionFact.class);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
