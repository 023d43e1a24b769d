package io.lmwarden.operator.reconciler;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes: the operator works asynchronously. */
final class Eventually {
    private Eventually() {
    }

    static void await(String what, Duration timeout, Supplier<Boolean> condition) {
        await(what, timeout, condition, () -> "");
    }

    /** As {@link #await(String, Duration, Supplier)}; on a timeout the message says what {@code state} saw last. */
    static void await(String what, Duration timeout, Supplier<Boolean> condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        AssertionError last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (Boolean.TRUE.equals(condition.get())) {
                    return;
                }
                last = null;
            } catch (AssertionError e) {
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
        String seen = state.get();
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what
                + (seen.isEmpty() ? "" : "; last seen: " + seen), last);
    }
}
