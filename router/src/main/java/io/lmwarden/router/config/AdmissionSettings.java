package io.lmwarden.router.config;

import java.time.Duration;
import java.util.List;

/**
 * KV-budgeted session admission. Durations are in workload time (a simulator K times faster than real
 * time has them divided by K on the wall clock: {@link #wall}).
 */
public record AdmissionSettings(
        @Key("admission") boolean enabled,
        double kvBudget,
        Duration residencyIdle,
        Duration residencySlice,
        int queueMax,
        Duration queueTimeout,
        Duration queueWaitBound,
        Duration queueKeepAlive,
        boolean queueFailFast,
        @Key("admissionEngage") String engage) {

    public static final Setting<Boolean> ADMISSION = Setting.bool("admission", true,
            "KV-budgeted session admission on/off: while the budget applies (`admissionEngage`), a session that is not resident "
                    + "waits in the router's queue until its working set fits a replica's KV budget; switch live with "
                    + "`PUT /api/policy {\"policy\":\"affinity\",\"admission\":false}` (the body always names the policy)");
    public static final Setting<Double> KV_BUDGET = Setting.decimal("kvBudget", "0.9",
            "share of each replica's KV capacity (`vllm:cache_config_info`) the working sets of its resident sessions may fill, "
                    + "in (0, 4]")
            .check(v -> v > 0 && v <= 4, "a share of the KV capacity in (0, 4]");
    public static final Setting<Duration> RESIDENCY_IDLE = Setting.duration("residencyIdle", "10s",
            "the pause between a session's steps (workload time) the return-time estimate assumes before it has seen any: its "
                    + "prior's median (residency lapses by cost under pressure, not by this timer)").positive();
    public static final Setting<Duration> RESIDENCY_SLICE = Setting.duration("residencySlice", "10m",
            "a session resident this long yields its residency at its next pause while others wait (workload time)").positive();
    public static final Setting<Integer> QUEUE_MAX = Setting.integer("queueMax", 1024,
            "requests the admission queue holds; one more gets 429 (OpenAI) / 529 `overloaded_error` (Anthropic) with `Retry-After`").atLeast(0);
    public static final Setting<Duration> QUEUE_TIMEOUT = Setting.duration("queueTimeout", "5m",
            "longest a request waits for admission (workload time); then 429 / 529 with `Retry-After`").positive();
    public static final Setting<Duration> QUEUE_KEEP_ALIVE = Setting.duration("queueKeepAlive", "10s",
            "a queued streaming request gets a keep-alive this often (Anthropic `event: ping`, OpenAI SSE comment; workload time)").positive();

    public static final Setting<Duration> QUEUE_WAIT_BOUND = Setting.duration("queueWaitBound", "60s",
            "longest a step of a session in progress waits in the admission queue (workload time): then it is admitted over the KV "
                    + "budget; a newcomer that has waited this long is admitted with its reply budgeted at the pool's recent replies "
                    + "instead of its `max_tokens` where that fits (docs/admission.md, \"Bounded waits\")").positive();

    public static final Setting<Boolean> QUEUE_FAIL_FAST = Setting.bool("queueFailFast", true,
            "refuse a newcomer at once (429 / 529 with `Retry-After`) when its forecast wait passes queueTimeout: newcomers ahead + 1 "
                    + "over the rate newcomers leave the queue admitted, times the forecast's recent error (realised / predicted, "
                    + "`/api/replicas` `queue.forecast`), once that error is measured on 8 outcomes; false: every newcomer queues and waits up to "
                    + "queueTimeout");

    public static final String ENGAGE_EVIDENCE = "evidence";
    public static final String ENGAGE_ALWAYS = "always";
    public static final Setting<String> ENGAGE = Setting.choice("admissionEngage", ENGAGE_EVIDENCE, List.of(ENGAGE_EVIDENCE, ENGAGE_ALWAYS),
            "when the KV budget applies: `evidence` only while the pool thrashes (residents missing their own cached prefix, "
                    + "an engine's KV full with requests waiting) and holding residents pays (the pool's median pause under half "
                    + "the break-even), else placement exactly as the policy; `always`");

    /** A workload duration on the router's wall clock, in nanoseconds (at least 1). */
    public static long wall(Duration workload, double timeScale) {
        return Math.max(1, (long) (workload.toNanos() / timeScale));
    }

    public AdmissionSettings withEnabled(boolean on) {
        return new AdmissionSettings(on, kvBudget, residencyIdle, residencySlice, queueMax, queueTimeout, queueWaitBound, queueKeepAlive, queueFailFast, engage);
    }
}
