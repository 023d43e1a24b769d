package io.lmwarden.sim.http;

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

    String render(EngineMetrics m) {
        return render(List.of(m));
    }

    /** {@code engines.get(i)} is labelled with the i-th engine label. */
    String render(List<EngineMetrics> engines) {
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
        counter(sb, engines, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", EngineMetrics::preemptions);
        counter(sb, engines, "vllm:prompt_tokens", "Number of prefill tokens processed.", EngineMetrics::promptTokens);
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
        header(sb, "vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
        for (int e = 0; e < engines.size(); e++) {
            java.util.StringJoiner info = new java.util.StringJoiner(",", "vllm:cache_config_info{", "} 1.0\n");
            CacheConfigInfo.labels(engines.get(e), engineLabels.get(e)).forEach((k, v) -> info.add(k + "=\"" + escape(v) + "\""));
            sb.append(info);
        }
        return sb.toString();
    }

    private void gauge(StringBuilder sb, List<EngineMetrics> engines, String name, String help, ToDoubleFunction<EngineMetrics> value) {
        header(sb, name, help, "gauge");
        for (int e = 0; e < engines.size(); e++) {
            sample(sb, e, name, "", value.applyAsDouble(engines.get(e)));
        }
    }

    private void counter(StringBuilder sb, List<EngineMetrics> engines, String base, String help, ToDoubleFunction<EngineMetrics> value) {
        String name = base + "_total";
        header(sb, name, help, "counter");
        for (int e = 0; e < engines.size(); e++) {
            sample(sb, e, name, "", value.applyAsDouble(engines.get(e)));
        }
    }

    private void success(StringBuilder sb, int engine, String reason, long value) {
        sample(sb, engine, "vllm:request_success_total", ",finished_reason=\"" + reason + "\"", value);
    }

    private void histogram(StringBuilder sb, List<EngineMetrics> engines, String name, String help,
                           Function<EngineMetrics, Histogram> of) {
        header(sb, name, help, "histogram");
        for (int e = 0; e < engines.size(); e++) {
            Histogram h = of.apply(engines.get(e));
            double[] bounds = h.bounds();
            for (int i = 0; i < bounds.length; i++) {
                sample(sb, e, name + "_bucket", ",le=\"" + bounds[i] + "\"", h.cumulative(i));
            }
            sample(sb, e, name + "_bucket", ",le=\"+Inf\"", h.count());
            sample(sb, e, name + "_count", "", h.count());
            sample(sb, e, name + "_sum", "", h.sum());
        }
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
