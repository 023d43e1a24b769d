package io.lmwarden.router.placement.admission;

import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * Converts between a router's own clock (its JVM's {@code nanoTime}, or a test's) and wall-clock epoch nanoseconds,
 * the only time two routers can compare. The offset is taken once, so intervals on one router stay exact; between
 * routers a time is as good as their wall clocks agree (NTP: a few milliseconds; on one machine, microseconds).
 */
public record EpochClock(long offsetNanos) {

    /** A router alone: nothing leaves it, and times convert as they are. */
    public static final EpochClock IDENTITY = new EpochClock(0);

    public static EpochClock of(LongSupplier clock) {
        Instant now = Instant.now();
        return new EpochClock(now.getEpochSecond() * 1_000_000_000L + now.getNano() - clock.getAsLong());
    }

    public long toEpoch(long localNanos) {
        return localNanos + offsetNanos;
    }

    public long toLocal(long epochNanos) {
        return epochNanos - offsetNanos;
    }
}
