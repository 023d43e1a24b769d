package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.reservation.Reservation;
import io.vertx.core.Vertx;

import java.util.function.Consumer;

/**
 * The stream idle timeout of one exchange: the attempt's replica must send something at least every
 * {@code streamIdleTimeout}. One timer per attempt, not one per chunk: when it fires early (the replica spoke
 * since) it waits out the rest. Confined to the exchange's event loop.
 */
final class IdleWatch {

    private final Vertx vertx;
    private final long timeoutMs;
    /** Told the attempt whose replica fell silent; the exchange decides whether that attempt still matters. */
    private final Consumer<Reservation> silent;
    private long timer = -1;
    private Reservation watched;
    private long lastHeardNanos;

    IdleWatch(Vertx vertx, long timeoutMs, Consumer<Reservation> silent) {
        this.vertx = vertx;
        this.timeoutMs = timeoutMs;
        this.silent = silent;
    }

    long timeoutMs() {
        return timeoutMs;
    }

    /** The attempt's replica was just heard from, or the attempt just started: the timeout counts from now. */
    void heard(Reservation attempt) {
        lastHeardNanos = System.nanoTime();
        if (timer >= 0 && watched == attempt) {
            return;
        }
        stop();
        watched = attempt;
        schedule(timeoutMs);
    }

    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    private void schedule(long delayMs) {
        Reservation attempt = watched;
        timer = vertx.setTimer(Math.max(1, delayMs), id -> {
            timer = -1;
            if (watched != attempt) {
                return;
            }
            long silentMs = (System.nanoTime() - lastHeardNanos) / 1_000_000;
            if (silentMs < timeoutMs) {
                schedule(timeoutMs - silentMs);
                return;
            }
            silent.accept(attempt);
        });
    }
}
