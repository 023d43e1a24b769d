package io.lmwarden.sim.http;

import io.lmwarden.sim.engine.EngineMetrics;
import io.lmwarden.sim.engine.Histogram;

/** Renders one engine's metrics in Prometheus text format 0.0.4 with vLLM's names and labels. */
final class MetricsExposition {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final String labels;
    private final String model;
    private final String engine;

    MetricsExposition(String model, int engineIndex) {
        this.model = escape(model);
        this.engine = Integer.toString(engineIndex);
        this.labels = "model_name=\"" + this.model + "\",engine=\"" + engine + "\"";
    }

    String render(EngineMetrics m) {
        StringBuilder sb = new StringBuilder(8192);
        gauge(sb, "vllm:num_requests_running", "Number of requests in model execution batches.", m.running());
        gauge(sb, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", m.waiting());
        gauge(sb, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", m.kvUsage());
        counter(sb, "vllm:prefix_cache_queries",
                "Prefix cache queries, in terms of number of queried tokens.", m.prefixQueries());
        counter(sb, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
                m.prefixHits());
        counter(sb, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", m.preemptions());
        counter(sb, "vllm:prompt_tokens", "Number of prefill tokens processed.", m.promptTokens());
        counter(sb, "vllm:generation_tokens", "Number of generation tokens processed.", m.generationTokens());
        header(sb, "vllm:request_success_total", "Count of successfully processed requests.", "counter");
        success(sb, "stop", m.finishedStop());
        success(sb, "length", m.finishedLength());
        success(sb, "abort", m.finishedAbort());
        histogram(sb, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                m.timeToFirstToken());
        histogram(sb, "vllm:request_queue_time_seconds",
                "Histogram of time spent in WAITING phase for request.", m.queueTime());
        histogram(sb, "vllm:request_prefill_time_seconds",
                "Histogram of time spent in PREFILL phase for request.", m.prefillTime());
        histogram(sb, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                m.e2eLatency());
        header(sb, "vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
        sb.append("vllm:cache_config_info{block_size=\"").append(m.blockSize()).append("\",enable_prefix_caching=\"True\"")
                .append(",num_gpu_blocks=\"").append(m.numGpuBlocks()).append("\",").append(labels).append("} 1.0\n");
        return sb.toString();
    }

    private void gauge(StringBuilder sb, String name, String help, double value) {
        header(sb, name, help, "gauge");
        sample(sb, name, "", value);
    }

    private void counter(StringBuilder sb, String base, String help, long value) {
        String name = base + "_total";
        header(sb, name, help, "counter");
        sample(sb, name, "", value);
    }

    private void success(StringBuilder sb, String reason, long value) {
        sample(sb, "vllm:request_success_total", ",finished_reason=\"" + reason + "\"", value);
    }

    private void histogram(StringBuilder sb, String name, String help, Histogram h) {
        header(sb, name, help, "histogram");
        double[] bounds = h.bounds();
        for (int i = 0; i < bounds.length; i++) {
            sample(sb, name + "_bucket", ",le=\"" + bounds[i] + "\"", h.cumulative(i));
        }
        sample(sb, name + "_bucket", ",le=\"+Inf\"", h.count());
        sample(sb, name + "_count", "", h.count());
        sample(sb, name + "_sum", "", h.sum());
    }

    private static void header(StringBuilder sb, String name, String help, String type) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void sample(StringBuilder sb, String name, String extraLabels, double value) {
        sb.append(name).append('{').append(labels).append(extraLabels).append("} ").append(format(value)).append('\n');
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
