package io.lmwarden.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.BenchSettings;

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
        settings.put("simulate", s.simulate());
        settings.put("engines", s.engines());
        settings.put("dpBalancer", s.dpBalancer());
        settings.put("targetUrl", s.target());
        settings.put("simProcesses", s.simProcesses());
        settings.putPOJO("replicaAdmin", s.replicaAdmin());
        settings.put("profile", s.profile());
        settings.put("profileOverrides", s.profileOverrides());
        settings.put("sharedFirstMessage", s.plan().classes().stream().allMatch(c -> c.sharedFirstMessage()));
        settings.put("keyless", s.plan().classes().stream().allMatch(c -> c.keying() == io.lmwarden.bench.workload.SessionKeying.NONE));
        settings.put("timeScale", s.timeScale());
        settings.putPOJO("policies", s.policies());
        settings.put("repeat", s.repeat());
        settings.putPOJO("sessions", s.sessions());
        settings.put("stageSeconds", s.stage().toMillis() / 1000.0);
        settings.put("settleSeconds", s.settle().toMillis() / 1000.0);
        settings.put("api", s.api().name().toLowerCase(java.util.Locale.ROOT));
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
        settings.put("spillThreshold", s.spillThreshold());
        settings.put("sampleIntervalSeconds", s.sampleInterval().toMillis() / 1000.0);
        settings.put("scrapeIntervalSeconds", s.scrapeInterval().toMillis() / 1000.0);
        settings.put("warmUpWallSeconds", s.warmUp().toMillis() / 1000.0);
        settings.putPOJO("routerSettings", s.routerSettings());
        rows(root.putArray("results"), results.medians());
        rows(root.putArray("perRepeat"), results.perRepeat());
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
            put(o, "sessions_per_hour", r.sessionsPerHour());
            put(o, "output_tokens_per_min", r.outputTokensPerMin());
            put(o, "ttfb_p50_s", r.ttfbP50());
            put(o, "ttfb_p95_s", r.ttfbP95());
            put(o, "replicas_busy", r.replicasBusy());
            put(o, "prefix_hit_pct", r.prefixHitPct());
            put(o, "stayed_pct", r.stayedPct());
            put(o, "oracle_hit_pct", r.oracleHitPct());
            o.put("errors", r.errors());
            ObjectNode causes = o.putObject("errors_by_cause");
            r.errorCauses().forEach(causes::put);
            o.put("steps", r.steps());
            o.put("sessions_completed", r.sessionsCompleted());
            put(o, "client_cached_pct", r.clientCachedPct());
            put(o, "engine_output_tokens_per_min", r.engineOutputTokensPerMin());
            put(o, "bench_cpu_cores", r.benchCpuCores());
            put(o, "session_time_p50_s", r.sessionTimeP50());
            put(o, "session_time_p95_s", r.sessionTimeP95());
            put(o, "queue_wait_p50_s", r.queueWaitP50());
            put(o, "queue_wait_p95_s", r.queueWaitP95());
            put(o, "queue_wait_max_s", r.queueWaitMax());
            o.put("admitted", r.admitted());
            o.put("queued", r.queued());
            o.put("rejected", r.rejected());
            if (r.routerSpread().routers() > 0) {
                ObjectNode spread = o.putObject("routers");
                spread.putPOJO("steps_per_router", r.routerSpread().stepsPerRouter());
                spread.put("sessions", r.routerSpread().sessions());
                spread.put("sessions_on_several_replicas", r.routerSpread().onSeveralReplicas());
                spread.put("unannounced_moves", r.routerSpread().unannouncedMoves());
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

    /** JSON has no NaN: an unknown figure is null. */
    private static void put(ObjectNode o, String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(field);
        } else {
            o.put(field, Math.round(v * 1000) / 1000.0);
        }
    }
}
