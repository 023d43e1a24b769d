package io.lmwarden.sim.http;

import io.lmwarden.sim.engine.CacheTierMetrics;
import io.lmwarden.sim.engine.EngineMetrics;
import io.lmwarden.sim.engine.Histogram;

import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Renders the engines of one server in Prometheus text format 0.0.4 with vLLM's names, labels and buckets
 * ({@code vllm/v1/metrics/loggers.py}): every family once, with one sample per engine labelled {@code model_name}
 * and {@code engine} ({@code "0".."N-1"}: a server of one engine is engine "0", as every one-vLLM pod is), except
 * {@code vllm:cache_config_info}, whose labels are the cache config's ({@link CacheConfigInfo}).
 */
final class MetricsExposition {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final String[] labels;
    private final List<String> engineLabels;

    /** @param engineLabels the {@code engine} label of each engine, in order */
    MetricsExposition(String model, List<String> engineLabels) {
        String m = escape(model);
        this.engineLabels = List.copyOf(engineLabels);
        this.labels = engineLabels.stream().map(e -> "model_name=\"" + m + "\",engine=\"" + e + "\"").toArray(String[]::new);
    }

    /** Engines labelled "0".."engines-1". */
    MetricsExposition(String model, int engines) {
        this(model, java.util.stream.IntStream.range(0, engines).mapToObj(Integer::toString).toList());
    }

    String render(EngineMetrics m, CacheTierMetrics t) {
        return render(List.of(m), List.of(t));
    }

    /** {@code engines.get(i)} and {@code tiers.get(i)} are labelled with the i-th engine label. */
    String render(List<EngineMetrics> engines, List<CacheTierMetrics> tiers) {
        if (engines.size() != labels.length) {
            throw new IllegalArgumentException("expected metrics of " + labels.length + " engines, got " + engines.size());
        }
        StringBuilder sb = new StringBuilder(8192 * engines.size());
        gauge(sb, engines, "vllm:num_requests_running", "Number of requests in model execution batches.", EngineMetrics::running);
        gauge(sb, engines, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", EngineMetrics::waiting);
        gauge(sb, engines, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", EngineMetrics::kvUsage);
        counter(sb, engines, "vllm:prefix_cache_queries",
                "Prefix cache queries, in terms of number of queried tokens.", EngineMetrics::prefixQueries);
        counter(sb, engines, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
                EngineMetrics::prefixHits);
        counter(sb, tiers, "vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector "
                + "cross-instance cache sharing, in terms of number of queried tokens.", CacheTierMetrics::externalQueries);
        counter(sb, tiers, "vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector "
                + "cross-instance cache sharing, in terms of number of cached tokens.", CacheTierMetrics::externalHits);
        counter(sb, engines, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", EngineMetrics::preemptions);
        counter(sb, engines, "vllm:prompt_tokens", "Number of prefill tokens processed.", EngineMetrics::promptTokens);
        header(sb, "vllm:prompt_tokens_by_source_total", "Number of prompt tokens by source.", "counter");
        for (int e = 0; e < tiers.size(); e++) {
            CacheTierMetrics t = tiers.get(e);
            sample(sb, e, "vllm:prompt_tokens_by_source_total", ",source=\"local_compute\"", t.promptComputed());
            sample(sb, e, "vllm:prompt_tokens_by_source_total", ",source=\"local_cache_hit\"", t.promptLocalHit());
            sample(sb, e, "vllm:prompt_tokens_by_source_total", ",source=\"external_kv_transfer\"", t.promptExternal());
        }
        counter(sb, tiers, "vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).",
                CacheTierMetrics::promptCached);
        counter(sb, tiers, "vllm:prompt_tokens_recomputed", "Number of cached tokens recomputed for forward pass.",
                CacheTierMetrics::promptRecomputed);
        counter(sb, engines, "vllm:generation_tokens", "Number of generation tokens processed.", EngineMetrics::generationTokens);
        header(sb, "vllm:request_success_total", "Count of successfully processed requests.", "counter");
        for (int e = 0; e < engines.size(); e++) {
            EngineMetrics m = engines.get(e);
            success(sb, e, "stop", m.finishedStop());
            success(sb, e, "length", m.finishedLength());
            success(sb, e, "abort", m.finishedAbort());
        }
        histogram(sb, engines, "vllm:request_prompt_tokens", "Number of prefill tokens processed.",
                EngineMetrics::requestPromptTokens);
        histogram(sb, engines, "vllm:request_generation_tokens", "Number of generation tokens processed.",
                EngineMetrics::requestGenerationTokens);
        histogram(sb, engines, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
                EngineMetrics::iterationTokens);
        histogram(sb, engines, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                EngineMetrics::timeToFirstToken);
        histogram(sb, engines, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                EngineMetrics::interTokenLatency);
        histogram(sb, engines, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                EngineMetrics::e2eLatency);
        histogram(sb, engines, "vllm:request_queue_time_seconds",
                "Histogram of time spent in WAITING phase for request.", EngineMetrics::queueTime);
        histogram(sb, engines, "vllm:request_prefill_time_seconds",
                "Histogram of time spent in PREFILL phase for request.", EngineMetrics::prefillTime);
        histogram(sb, engines, "vllm:request_decode_time_seconds",
                "Histogram of time spent in DECODE phase for request.", EngineMetrics::decodeTime);
        if (tiers.stream().anyMatch(CacheTierMetrics::hostTier)) {
            offload(sb, tiers);
        }
        header(sb, "vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
        for (int e = 0; e < engines.size(); e++) {
            java.util.StringJoiner info = new java.util.StringJoiner(",", "vllm:cache_config_info{", "} 1.0\n");
            CacheConfigInfo.labels(engines.get(e), tiers.get(e), engineLabels.get(e))
                    .forEach((k, v) -> info.add(k + "=\"" + escape(v) + "\""));
            sb.append(info);
        }
        return sb.toString();
    }

    /**
     * The offloading connector's series ({@code kv_connector/v1/offloading/metrics.py} and the CPU spec's usage gauge):
     * the load/store split, and the deprecated {@code transfer_type}-labelled series vLLM still emits beside it.
     */
    private void offload(StringBuilder sb, List<CacheTierMetrics> tiers) {
        counter(sb, tiers, "vllm:kv_offload_load_bytes", "Total bytes loaded from offload storage to GPU.",
                CacheTierMetrics::loadBytes);
        counter(sb, tiers, "vllm:kv_offload_load_time", "Total load time from offload storage to GPU, in seconds.",
                CacheTierMetrics::loadSeconds);
        histogram(sb, tiers, "vllm:kv_offload_load_size", "Histogram of KV offload load operation size, in bytes.",
                CacheTierMetrics::loadSize);
        counter(sb, tiers, "vllm:kv_offload_store_bytes", "Total bytes stored from GPU to offload storage.",
                CacheTierMetrics::storeBytes);
        counter(sb, tiers, "vllm:kv_offload_store_time", "Total store time from GPU to offload storage, in seconds.",
                CacheTierMetrics::storeSeconds);
        histogram(sb, tiers, "vllm:kv_offload_store_size", "Histogram of KV offload store operation size, in bytes.",
                CacheTierMetrics::storeSize);
        byTransferType(sb, tiers, "vllm:kv_offload_total_bytes_total", "Number of bytes offloaded by KV connector",
                CacheTierMetrics::loadBytes, CacheTierMetrics::storeBytes);
        byTransferType(sb, tiers, "vllm:kv_offload_total_time_total", "Total time measured by all KV offloading operations",
                CacheTierMetrics::loadSeconds, CacheTierMetrics::storeSeconds);
        header(sb, "vllm:kv_offload_size", "Histogram of KV offload transfer size, in bytes.", "histogram");
        for (int e = 0; e < tiers.size(); e++) {
            histogramSamples(sb, e, "vllm:kv_offload_size", ",transfer_type=\"CPU_to_GPU\"", tiers.get(e).loadSize());
            histogramSamples(sb, e, "vllm:kv_offload_size", ",transfer_type=\"GPU_to_CPU\"", tiers.get(e).storeSize());
        }
        gauge(sb, tiers, "vllm:kv_offload_cpu_cache_usage_perc", "Fraction of CPU KV-cache space currently pinned by active "
                + "transfers (0.0 = idle, 1.0 = saturated). Sustained high values indicate transfers (stores or promotions) "
                + "may be dropped due to insufficient capacity.", CacheTierMetrics::cpuUsage);
    }

    /** A deprecated offload counter: one sample per engine and {@code transfer_type} (CPU_to_GPU = loads, GPU_to_CPU = stores). */
    private void byTransferType(StringBuilder sb, List<CacheTierMetrics> tiers, String name, String help,
                                ToDoubleFunction<CacheTierMetrics> load, ToDoubleFunction<CacheTierMetrics> store) {
        header(sb, name, help, "counter");
        for (int e = 0; e < tiers.size(); e++) {
            sample(sb, e, name, ",transfer_type=\"CPU_to_GPU\"", load.applyAsDouble(tiers.get(e)));
            sample(sb, e, name, ",transfer_type=\"GPU_to_CPU\"", store.applyAsDouble(tiers.get(e)));
        }
    }

    private <T> void gauge(StringBuilder sb, List<T> engines, String name, String help, ToDoubleFunction<T> value) {
        header(sb, name, help, "gauge");
        for (int e = 0; e < engines.size(); e++) {
            sample(sb, e, name, "", value.applyAsDouble(engines.get(e)));
        }
    }

    private <T> void counter(StringBuilder sb, List<T> engines, String base, String help, ToDoubleFunction<T> value) {
        String name = base + "_total";
        header(sb, name, help, "counter");
        for (int e = 0; e < engines.size(); e++) {
            sample(sb, e, name, "", value.applyAsDouble(engines.get(e)));
        }
    }

    private void success(StringBuilder sb, int engine, String reason, long value) {
        sample(sb, engine, "vllm:request_success_total", ",finished_reason=\"" + reason + "\"", value);
    }

    private <T> void histogram(StringBuilder sb, List<T> engines, String name, String help, Function<T, Histogram> of) {
        header(sb, name, help, "histogram");
        for (int e = 0; e < engines.size(); e++) {
            histogramSamples(sb, e, name, "", of.apply(engines.get(e)));
        }
    }

    private void histogramSamples(StringBuilder sb, int e, String name, String extraLabels, Histogram h) {
        double[] bounds = h.bounds();
        for (int i = 0; i < bounds.length; i++) {
            sample(sb, e, name + "_bucket", extraLabels + ",le=\"" + goString(bounds[i]) + "\"", h.cumulative(i));
        }
        sample(sb, e, name + "_bucket", extraLabels + ",le=\"+Inf\"", h.count());
        sample(sb, e, name + "_count", extraLabels, h.count());
        sample(sb, e, name + "_sum", extraLabels, h.sum());
    }

    /**
     * A bucket bound as prometheus_client's {@code floatToGoString} writes it: Python's repr, switching to Go's exponent
     * form from 10^6 on ({@code 1e+06}, {@code 1.5e+08}).
     */
    static String goString(double d) {
        String repr = d == Math.rint(d) && Math.abs(d) < 1e16 ? (long) d + ".0" : Double.toString(d);
        int dot = repr.indexOf('.');
        if (d > 0 && dot > 6) {
            String digits = repr.charAt(0) + "." + repr.substring(1, dot) + repr.substring(dot + 1);
            String mantissa = digits.replaceAll("[0.]+$", "");
            return mantissa + "e+0" + (dot - 1);
        }
        return repr;
    }

    private static void header(StringBuilder sb, String name, String help, String type) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void sample(StringBuilder sb, int engine, String name, String extraLabels, double value) {
        sb.append(name).append('{').append(labels[engine]).append(extraLabels).append("} ").append(format(value)).append('\n');
    }

    static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return (long) v + ".0";
        }
        return Double.toString(v);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
