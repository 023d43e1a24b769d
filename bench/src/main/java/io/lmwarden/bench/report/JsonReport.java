package io.lmwarden.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.settings.BenchSettings;

import java.util.List;

/** results.json: settings, the median rows (same figures as the CSV) and every repeat's raw figures. */
public final class JsonReport {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static String render(BenchResults results) {
        ObjectNode root = MAPPER.createObjectNode();
        BenchSettings s = results.settings();
        root.put("command", s.commandLine());
        root.put("started", results.started().toString());
        root.put("finished", results.finished().toString());
        root.put("target", results.target());
        root.put("counterSource", results.counterSource());
        root.put("model", results.model());
        root.put("machine", results.machine());
        ObjectNode settings = root.putObject("settings");
        settings.put("simulate", s.pool().simulate());
        settings.put("engines", s.pool().engines());
        settings.put("dpBalancer", s.pool().dpBalancer());
        settings.put("targetUrl", s.pool().target());
        settings.put("simProcesses", s.pool().simProcesses());
        settings.putPOJO("replicaAdmin", s.pool().replicaAdmin());
        settings.put("profile", s.pool().profile());
        settings.put("profileOverrides", s.pool().profileOverrides());
        settings.put("sharedFirstMessage", s.plan().classes().stream().allMatch(c -> c.sharedFirstMessage()));
        settings.put("keyless", s.plan().classes().stream().allMatch(c -> c.keying() == io.lmwarden.bench.workload.SessionKeying.NONE));
        settings.put("timeScale", s.run().timeScale());
        settings.putPOJO("policies", s.run().policies());
        settings.put("repeat", s.run().repeat());
        settings.putPOJO("sessions", s.run().sessions());
        settings.put("stageSeconds", s.run().stage().toMillis() / 1000.0);
        settings.put("settleSeconds", s.run().settle().toMillis() / 1000.0);
        settings.put("api", s.api().shortName());
        settings.put("systemTokens", s.workload().systemTokens());
        settings.put("firstTokens", s.workload().firstTokens());
        settings.put("followUpSteps", s.workload().followUpSteps());
        settings.put("stepTokens", s.workload().stepTokens());
        settings.put("maxOutputTokens", s.workload().maxOutputTokens());
        settings.put("thinkTimeSeconds", s.workload().thinkTime().toMillis() / 1000.0);
        settings.put("thinkJitter", s.workload().thinkJitter());
        settings.put("seed", s.workload().seed());
        if (s.workloadFile() != null) {
            settings.put("workloadFile", s.workloadFile().toString());
        }
        var classes = settings.putArray("sessionClasses");
        s.plan().classes().forEach(c -> classes.add(c.describe()));
        var faults = settings.putArray("faults");
        s.plan().faults().forEach(f -> faults.add(f.describe()));
        settings.put("spillThreshold", s.pool().spillThreshold());
        settings.put("sampleIntervalSeconds", s.run().sampleInterval().toMillis() / 1000.0);
        settings.put("scrapeIntervalSeconds", s.pool().scrapeInterval().toMillis() / 1000.0);
        settings.put("warmUpWallSeconds", s.run().warmUp().toMillis() / 1000.0);
        settings.putPOJO("routerSettings", s.pool().routerSettings());
        settings.put("stepsPerRouter", s.pool().stepsPerRouter());
        settings.put("sessionStart", s.plan().start().name().toLowerCase(java.util.Locale.ROOT));
        if (s.plan().adapters().present()) {
            ObjectNode adapters = settings.putObject("adapters");
            adapters.put("count", s.plan().adapters().count());
            adapters.put("zipf", s.plan().adapters().zipf());
            adapters.put("share", s.plan().adapters().share());
            adapters.put("maxLoras", s.pool().maxLoras());
            adapters.put("maxCpuLoras", s.pool().maxCpuLoras());
        }
        if (s.trace() != null) {
            ObjectNode trace = settings.putObject("trace");
            trace.put("file", s.trace().file().toString());
            trace.put("blockSize", s.trace().blockSize());
            trace.put("speed", s.trace().speed());
            if (s.trace().duration() != null) {
                trace.put("durationSeconds", s.trace().duration().toMillis() / 1000.0);
            }
        }
        if (s.pool().contextWindow() > 0) {
            settings.put("contextWindow", s.pool().contextWindow());
        }
        rows(root.putArray("results"), results.medians());
        rows(root.putArray("perRepeat"), results.perRepeat());
        if (GoalVerdict.applies(results.medians())) {
            goal(root.putObject("goal"), GoalVerdict.of(results.medians()));
        }
        try {
            return MAPPER.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void rows(ArrayNode array, List<StageResult> rows) {
        for (StageResult r : rows) {
            ObjectNode o = array.addObject();
            o.put("policy", r.policy());
            o.put("sessions", r.sessions());
            if (r.repeat() > 0) {
                o.put("repeat", r.repeat());
            }
            put(o, "stage_seconds", r.stageSeconds());
            put(o, "sessions_per_hour", r.throughput().sessionsPerHour());
            put(o, "output_tokens_per_min", r.throughput().outputTokensPerMin());
            put(o, "ttfb_p50_s", r.latency().ttfbP50());
            put(o, "ttfb_p95_s", r.latency().ttfbP95());
            put(o, "ttfb_p99_s", r.latency().ttfbP99());
            put(o, "session_worst_ttfb_p95_s", r.latency().sessionWorstTtfbP95());
            put(o, "session_worst_ttfb_max_s", r.latency().sessionWorstTtfbMax());
            put(o, "replicas_busy", r.replicasBusy());
            put(o, "prefix_hit_pct", r.cache().prefixHitPct());
            put(o, "stayed_pct", r.cache().stayedPct());
            put(o, "oracle_hit_pct", r.cache().oracleHitPct());
            o.put("errors", r.errors().count());
            ObjectNode causes = o.putObject("errors_by_cause");
            r.errors().causes().forEach(causes::put);
            o.put("steps", r.throughput().steps());
            o.put("sessions_completed", r.throughput().sessionsCompleted());
            put(o, "client_cached_pct", r.cache().clientCachedPct());
            put(o, "engine_output_tokens_per_min", r.throughput().engineOutputTokensPerMin());
            put(o, "bench_cpu_cores", r.benchCpuCores());
            StageResult.SessionTimes t = r.sessionTimes();
            put(o, "session_time_p50_s", t.p50());
            put(o, "session_time_p95_s", t.p95());
            put(o, "queue_wait_p50_s", r.queue().waitP50());
            put(o, "queue_wait_p95_s", r.queue().waitP95());
            put(o, "queue_wait_max_s", r.queue().waitMax());
            o.put("admitted", r.queue().admitted());
            o.put("queued", r.queue().queued());
            o.put("rejected", r.queue().rejected());
            o.put("rejected_first_steps", r.queue().rejectedFirstSteps());
            o.put("rejected_in_progress", r.queue().rejectedInProgress());
            o.put("session_time_p50_at_least", t.p50AtLeast());
            o.put("session_time_p95_at_least", t.p95AtLeast());
            put(o, "session_time_littles_law_s", t.littlesLaw());
            o.put("session_time_littles_law_at_least", t.littlesLawAtLeast());
            o.put("sessions_unfinished", t.unfinished());
            put(o, "unfinished_age_p50_s", t.unfinishedAgeP50());
            put(o, "unfinished_age_max_s", t.unfinishedAgeMax());
            put(o, "sessions_per_hour_from_calls", r.throughput().sessionsPerHourFromCalls());
            put(o, "session_time_littles_law_from_calls_s", t.littlesLawFromCalls());
            if (CeilingRatio.present(rows)) {
                put(o, "ceiling_ratio_output_tokens", CeilingRatio.outputTokens(r, rows));
                put(o, "ceiling_ratio_sessions_per_hour", CeilingRatio.sessionsPerHour(r, rows));
            }
            if (r.routerSpread().routers() > 0) {
                ObjectNode spread = o.putObject("routers");
                spread.putPOJO("steps_per_router", r.routerSpread().stepsPerRouter());
                spread.put("sessions", r.routerSpread().sessions());
                spread.put("sessions_on_several_replicas", r.routerSpread().onSeveralReplicas());
                spread.put("unannounced_moves", r.routerSpread().unannouncedMoves());
                spread.putPOJO("moves_by_decision", r.routerSpread().movesByDecision());
                spread.put("refused_connections", r.routerSpread().refusedConnections());
            }
            if (r.timeline().present()) {
                timeline(o.putObject("timeline"), r.timeline());
            }
            if (r.adapters().present()) {
                adapters(o.putObject("adapters"), r.adapters());
            }
            if (!r.replicas().isEmpty()) {
                ArrayNode replicas = o.putArray("replicas");
                for (ReplicaFigures f : r.replicas()) {
                    ObjectNode x = replicas.addObject();
                    x.put("id", f.id());
                    x.put("requests", f.requests());
                    x.put("errors", f.errors());
                    put(x, "ttfb_p50_s", f.ttfbP50());
                    put(x, "prefix_hit_pct", f.prefixHitPct());
                    put(x, "busy_pct", f.busyPct());
                }
            }
            if (!r.classes().isEmpty()) {
                ArrayNode classes = o.putArray("classes");
                for (ClassFigures c : r.classes()) {
                    ObjectNode x = classes.addObject();
                    x.put("class", c.name());
                    x.put("steps", c.steps());
                    x.put("errors", c.errors());
                    put(x, "ttfb_p50_s", c.ttfbP50());
                    put(x, "ttfb_p95_s", c.ttfbP95());
                    put(x, "client_cached_pct", c.cachedPct());
                    put(x, "stayed_pct", c.stayedPct());
                }
            }
        }
    }

    /** LoRA figures of a stage whose sessions ran on adapters. */
    private static void adapters(ObjectNode o, AdapterFigures a) {
        o.put("steps", a.steps());
        o.put("adapter_steps", a.adapterSteps());
        put(o, "slot_waits", a.slotWaits());
        put(o, "slot_wait_pct_of_steps", a.slotWaitPct());
        put(o, "slot_wait_pct_of_adapter_steps", a.slotWaitPctOfAdapterSteps());
        put(o, "disk_loads", a.diskLoads());
        put(o, "adapter_client_cached_pct", a.adapterCachedPct());
        put(o, "base_client_cached_pct", a.baseCachedPct());
        put(o, "hit_gap_points", a.hitGapPoints());
        put(o, "adapter_oracle_hit_pct", a.adapterOraclePct());
        put(o, "base_oracle_hit_pct", a.baseOraclePct());
    }

    /** The stage over time around the pool's operations (issue 26's figures), workload seconds from the variant's start. */
    private static void timeline(ObjectNode o, Timeline t) {
        Timeline.Figures f = t.figures();
        put(o, "window_seconds", t.windowSeconds());
        put(o, "overrun_s", t.overrun().seconds());
        o.putPOJO("faults_still_running", t.overrun().stillRunning());
        ObjectNode g = o.putObject("figures");
        g.put("lost_before_first_byte", f.lostBeforeFirstByte());
        g.put("cut_streams", f.cutStreams());
        put(g, "operation_start_s", f.operationStart());
        put(g, "operation_end_s", f.operationEnd());
        put(g, "last_ready_s", f.lastReady());
        put(g, "output_tokens_per_min_before", f.tokensPerMinBefore());
        put(g, "output_tokens_per_min_during", f.tokensPerMinDuring());
        put(g, "output_tokens_ratio_during_to_before", f.tokensRatio());
        put(g, "hit_pct_before", f.hitPctBefore());
        put(g, "hit_pct_after_last_ready", f.hitPctAfter());
        put(g, "hit_pct_after_seconds", f.afterSeconds());
        put(g, "hit_pct_change_points", f.hitPctChange());
        put(g, "queue_wait_p95_before_s", f.queueWaitP95Before());
        put(g, "queue_wait_p95_next_stage_s", f.queueWaitP95NextStage());
        put(g, "queue_wait_p95_later_s", f.queueWaitP95Later());
        ArrayNode phases = o.putArray("phases");
        for (Timeline.Phase p : t.phases()) {
            ObjectNode x = phases.addObject();
            put(x, "at_s", p.atSeconds());
            x.put("subject", p.subject());
            x.put("phase", p.phase());
            x.put("detail", p.detail());
        }
        ArrayNode windows = o.putArray("windows");
        for (Timeline.Window w : t.windows()) {
            ObjectNode x = windows.addObject();
            put(x, "from_s", w.fromSeconds());
            put(x, "to_s", w.toSeconds());
            x.put("steps", w.steps());
            put(x, "output_tokens_per_min", w.outputTokensPerMin());
            put(x, "hit_pct", w.cachedPct());
            x.put("lost_before_first_byte", w.lostBeforeFirstByte());
            x.put("cut_streams", w.cutStreams());
            x.put("queued", w.queued());
            put(x, "queue_wait_p95_s", w.queueWaitP95());
            x.put("moves", w.moves());
            x.putPOJO("steps_by_replica", w.stepsByReplica());
        }
    }

    /** Issue 23's verdict per stage: the rules, and for each stage every criterion with its figures. */
    private static void goal(ObjectNode goal, List<GoalVerdict.Cell> cells) {
        goal.put("rules", "default >= best other - " + Math.round(GoalVerdict.THROUGHPUT_TOLERANCE * 100) + " % on output tokens/min and"
                + " sessions/h; <= best other + " + Math.round(GoalVerdict.LATENCY_TOLERANCE * 100) + " % on TTFB p50 and the"
                + " Little's-law session time; no rejected step of a session in progress (medians; rejections summed over repeats;"
                + " the ceiling is not an other)");
        goal.put("routers_rules", "default*K (K clustered routers) also against default on one router: >= its - "
                + Math.round(GoalVerdict.THROUGHPUT_TOLERANCE * 100) + " % on output tokens/min and sessions/h, prefix hits >= its - "
                + Math.round(GoalVerdict.HITS_TOLERANCE_POINTS) + " points");
        goal.put("met", cells.stream().allMatch(GoalVerdict.Cell::met));
        ArrayNode array = goal.putArray("cells");
        for (GoalVerdict.Cell c : cells) {
            ObjectNode cell = array.addObject();
            cell.put("variant", c.variant());
            cell.put("sessions", c.sessions());
            cell.put("met", c.met());
            cell.putPOJO("misses", c.misses());
            cell.put("rejected_in_progress", c.rejectedInProgress());
            cell.put("rejected_first_steps", c.rejectedFirstSteps());
            put(cell, "ceiling_ratio_output_tokens", c.ceilingRatio());
            criteria(cell.putArray("criteria"), c.criteria());
            if (!c.againstOneRouter().isEmpty()) {
                criteria(cell.putArray("against_one_router"), c.againstOneRouter());
            }
            if (c.routers().routers() > 0) {
                ObjectNode spread = cell.putObject("routers");
                spread.putPOJO("steps_per_router", c.routers().stepsPerRouter());
                spread.put("sessions", c.routers().sessions());
                spread.put("sessions_on_several_replicas", c.routers().onSeveralReplicas());
                spread.put("unannounced_moves", c.routers().unannouncedMoves());
                spread.put("refused_connections", c.routers().refusedConnections());
            }
        }
    }

    /** Each criterion: the figure, what it is compared with ("best_other": that policy), default's value and the verdict. */
    private static void criteria(ArrayNode array, List<GoalVerdict.Criterion> criteria) {
        for (GoalVerdict.Criterion k : criteria) {
            ObjectNode x = array.addObject();
            x.put("figure", k.figure());
            x.put("best_other", k.bestPolicy());
            put(x, "best", k.best());
            put(x, "default", k.value());
            put(x, k.points() ? "delta_points" : "delta_pct", k.deltaPct());
            put(x, "limit", k.limit());
            x.put("higher_is_better", k.higherIsBetter());
            x.put("default_censored", k.censored());
            x.put("met", k.met());
        }
    }

    /** JSON has no NaN: an unknown figure is null. */
    private static void put(ObjectNode o, String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(field);
        } else {
            o.put(field, Math.round(v * 1000) / 1000.0);
        }
    }
}
