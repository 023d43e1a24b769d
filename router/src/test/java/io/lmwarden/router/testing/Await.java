package io.lmwarden.router.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.fail;

/**
 * Polls a condition with a short sleep until it holds. The deadline only turns a hang into a failure that says what
 * was awaited and what was seen instead: it is generous on purpose and bounds no speed (speed belongs in the bench).
 */
public final class Await {

    /** Long enough for a loaded 2-core machine; a test that needs it is hung, not slow. */
    public static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private static final long POLL_MS = 20;

    private Await() {
    }

    /** Waits until {@code condition} holds; on a hang, fails with {@code what} and {@code state}'s account of things. */
    public static void until(String what, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + HANG_GUARD.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("waited " + HANG_GUARD.toSeconds() + " s for " + what + "; last seen: " + state.get());
            }
            RouterUnderTest.sleep(POLL_MS);
        }
    }
}
