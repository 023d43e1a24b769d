package io.lmwarden.router.kvevents;

import io.lmwarden.router.config.CacheViewSettings;
import io.lmwarden.router.config.RouterConfig;

import java.time.Duration;

/**
 * How the subscriber treats its streams. {@code staleAfter}: a view is stale once its publisher has been unreachable
 * this long, or silent this long after the router sent it a request. {@code replayTimeout}: a replay that has not
 * ended by then is abandoned and the view resynchronised. {@code heartbeat}: ZeroMQ heartbeats on each connection,
 * so a publisher that vanishes without closing its socket is noticed after three missed ones.
 * {@code maxBufferedDuringReplay}: live batches held back while a replay runs. {@code evictionLogCapacity}: GPU
 * departures remembered per view for "evicted at T".
 */
public record KvEventsSettings(Duration staleAfter, Duration replayTimeout, Duration heartbeat,
                               int maxBufferedDuringReplay, int evictionLogCapacity, Duration pollInterval) {

    /** The config area's {@code kvEventsStaleAfter} and {@code kvEventsReplayTimeout}; the rest are the stream's own constants. */
    public static KvEventsSettings of(CacheViewSettings config) {
        return new KvEventsSettings(config.staleAfter(), config.replayTimeout(), Duration.ofSeconds(2), 10_000, 65_536,
                Duration.ofMillis(50));
    }

    /** With the config area's defaults. */
    public static KvEventsSettings defaults() {
        return of(RouterConfig.defaults().kvEvents());
    }

    public KvEventsSettings withStaleAfter(Duration d) {
        return new KvEventsSettings(d, replayTimeout, heartbeat, maxBufferedDuringReplay, evictionLogCapacity,
                pollInterval);
    }

    public KvEventsSettings withReplayTimeout(Duration d) {
        return new KvEventsSettings(staleAfter, d, heartbeat, maxBufferedDuringReplay, evictionLogCapacity,
                pollInterval);
    }
}
