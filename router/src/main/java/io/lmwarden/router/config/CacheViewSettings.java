package io.lmwarden.router.config;

import java.time.Duration;

/**
 * The engines' own cache view (vLLM KV events, package {@code kvevents}): whether the router follows the publishers
 * discovery names (EndpointSlice ports {@code kv-events}/{@code kv-replay}, {@code #kv=…&replay=…} after a static
 * replica; with {@code --simulate} the simulated replicas publish), under which topic, and when a view stops being
 * trusted.
 */
public record CacheViewSettings(
        @Key("kvEvents") boolean enabled,
        @Key("kvEventsTopic") String topic,
        @Key("kvEventsStaleAfter") Duration staleAfter,
        @Key("kvEventsReplayTimeout") Duration replayTimeout) {

    public static final Setting<Boolean> KV_EVENTS = Setting.bool("kvEvents", true,
            "follow the replicas' vLLM KV events where discovery names a publisher (EndpointSlice ports kv-events/kv-replay; "
                    + "#kv=PORT&replay=PORT after a static replica; --simulate starts its replicas publishing): placement then "
                    + "knows what each engine really holds; off (or no publisher) = the router's own estimates");
    public static final Setting<String> KV_EVENTS_TOPIC = Setting.text("kvEventsTopic", "",
            "ZMQ topic to subscribe to (a prefix; empty = every topic: one publisher per socket)");
    public static final Setting<Duration> KV_EVENTS_STALE_AFTER = Setting.duration("kvEventsStaleAfter", "10s",
            "a replica's view is stale (placement falls back to estimates) once its publisher is unreachable this long, or "
                    + "silent this long after a request was sent there").positive();
    public static final Setting<Duration> KV_EVENTS_REPLAY_TIMEOUT = Setting.duration("kvEventsReplayTimeout", "3s",
            "a replay of missed batches that has not ended within this is given up and the view rebuilt (resync)").positive();
}
