package io.lmwarden.bench.pool;

import io.vertx.core.Future;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocks the orchestrating (non-Vert.x) thread on a Vert.x future. */
public final class Await {

    private Await() {
    }

    public static <T> T result(Future<T> future, Duration timeout) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new IllegalStateException(cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + timeout.toSeconds() + " s", e);
        }
    }
}
