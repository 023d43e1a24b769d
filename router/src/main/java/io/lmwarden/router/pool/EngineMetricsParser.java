package io.lmwarden.router.pool;

import java.util.HashSet;
import java.util.Set;

/**
 * Turns a vLLM {@code /metrics} page into {@link EngineMetrics}, accepting both the current names
 * and the deprecated ones ({@code vllm:gpu_cache_usage_perc}, {@code vllm:gpu_prefix_cache_queries}/{@code _hits}).
 * Values of several engines behind one endpoint are summed (KV use is averaged).
 */
public final class EngineMetricsParser {

    private EngineMetricsParser() {
    }

    public static EngineMetrics parse(CharSequence text, long nowNanos) {
        double[] v = new double[12];
        int[] kvSamples = new int[1];
        int[] blocks = new int[2];
        Set<String> models = new HashSet<>();
        boolean[] sawCurrentPrefix = new boolean[1];
        double[] deprecatedPrefix = new double[2];
        PrometheusText.forEachSample(text, s -> {
            String model = s.labels().get("model_name");
            if (model != null && s.name().startsWith("vllm:")) {
                models.add(model);
            }
            switch (s.name()) {
                case "vllm:num_requests_running" -> v[0] += s.value();
                case "vllm:num_requests_waiting" -> v[1] += s.value();
                case "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc" -> {
                    v[2] += s.value();
                    kvSamples[0]++;
                }
                case "vllm:prefix_cache_queries_total" -> {
                    v[3] += s.value();
                    sawCurrentPrefix[0] = true;
                }
                case "vllm:prefix_cache_hits_total" -> v[4] += s.value();
                case "vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries" -> deprecatedPrefix[0] += s.value();
                case "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits" -> deprecatedPrefix[1] += s.value();
                case "vllm:prompt_tokens_total" -> v[5] += s.value();
                case "vllm:generation_tokens_total" -> v[6] += s.value();
                case "vllm:num_preemptions_total" -> v[7] += s.value();
                case "vllm:request_queue_time_seconds_sum" -> v[8] += s.value();
                case "vllm:request_queue_time_seconds_count" -> v[9] += s.value();
                case "vllm:request_prefill_time_seconds_sum" -> v[10] += s.value();
                case "vllm:request_prefill_time_seconds_count" -> v[11] += s.value();
                case "vllm:cache_config_info" -> {
                    blocks[0] += parseInt(s.labels().get("num_gpu_blocks"));
                    blocks[1] = Math.max(blocks[1], parseInt(s.labels().get("block_size")));
                }
                default -> {
                }
            }
        });
        // A page that has both forms of the prefix counters reports the same tokens twice.
        double queries = sawCurrentPrefix[0] ? v[3] : deprecatedPrefix[0];
        double hits = sawCurrentPrefix[0] ? v[4] : deprecatedPrefix[1];
        double kv = kvSamples[0] == 0 ? 0 : v[2] / kvSamples[0];
        return new EngineMetrics(nowNanos, v[0], v[1], kv, queries, hits, v[5], v[6], v[7], blocks[0], blocks[1],
                v[8], v[9], v[10], v[11], models);
    }

    private static int parseInt(String s) {
        if (s == null) {
            return 0;
        }
        try {
            return (int) Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
