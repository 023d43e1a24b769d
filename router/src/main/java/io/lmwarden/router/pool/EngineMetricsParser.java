package io.lmwarden.router.pool;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns a vLLM {@code /metrics} page into {@link ScrapedMetrics}, accepting both the current names
 * and the deprecated ones ({@code vllm:gpu_cache_usage_perc}, {@code vllm:gpu_prefix_cache_queries}/{@code _hits}).
 * {@link #parse} sums the engines behind one endpoint (KV use is averaged); {@link #parseEndpoint} also
 * keeps each engine's own figures, by the integer value of its {@code engine} label.
 */
public final class EngineMetricsParser {

    private EngineMetricsParser() {
    }

    public static ScrapedMetrics parse(CharSequence text, long nowNanos) {
        Accumulator total = new Accumulator();
        PrometheusText.forEachSample(text, total::accept);
        return total.build(nowNanos);
    }

    public static EndpointMetrics parseEndpoint(CharSequence text, long nowNanos) {
        Accumulator total = new Accumulator();
        Map<Integer, Accumulator> engines = new HashMap<>();
        PrometheusText.forEachSample(text, s -> {
            total.accept(s);
            Integer engine = engineOf(s);
            if (engine != null) {
                engines.computeIfAbsent(engine, e -> new Accumulator()).accept(s);
            }
        });
        Map<Integer, ScrapedMetrics> byEngine = new TreeMap<>();
        engines.forEach((e, acc) -> byEngine.put(e, acc.build(nowNanos)));
        return new EndpointMetrics(total.build(nowNanos), byEngine);
    }

    /** The engine a vLLM sample belongs to, or null (no label, not an integer, not a vllm: series). */
    private static Integer engineOf(PrometheusText.Sample s) {
        String label = s.labels().get("engine");
        if (label == null || !s.name().startsWith("vllm:")) {
            return null;
        }
        try {
            int e = Integer.parseInt(label);
            return e >= 0 ? e : null;
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    /** The sums of one set of samples (one engine, or all of them). */
    private static final class Accumulator {
        private final double[] v = new double[12];
        /** Host tier: size GiB, external queries, external hits, load bytes, load seconds, and the deprecated CPU_to_GPU bytes and time. */
        private final double[] tier = new double[7];
        private boolean sawLoadSplit;
        private int kvSamples;
        private int gpuBlocks;
        private int blockSize;
        private final Set<String> models = new HashSet<>();
        private boolean sawCurrentPrefix;
        private final double[] deprecatedPrefix = new double[2];
        private int maxLoras;
        private double newestLoraSeries = Double.NEGATIVE_INFINITY;
        private String busyLoras = "";

        void accept(PrometheusText.Sample s) {
            String model = s.labels().get("model_name");
            if (model != null && s.name().startsWith("vllm:")) {
                models.add(model);
            }
            switch (s.name()) {
                case "vllm:num_requests_running" -> v[0] += s.value();
                case "vllm:num_requests_waiting" -> v[1] += s.value();
                case "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc" -> {
                    v[2] += s.value();
                    kvSamples++;
                }
                case "vllm:prefix_cache_queries_total" -> {
                    v[3] += s.value();
                    sawCurrentPrefix = true;
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
                    gpuBlocks += parseInt(s.labels().get("num_gpu_blocks"));
                    blockSize = Math.max(blockSize, parseInt(s.labels().get("block_size")));
                    tier[0] += parseDouble(s.labels().get("kv_offloading_size"));
                }
                case "vllm:lora_requests_info" -> {
                    maxLoras = Math.max(maxLoras, parseInt(s.labels().get("max_lora")));
                    // Every label set the gauge was given stays; the current one carries the newest time.
                    if (s.value() > newestLoraSeries) {
                        newestLoraSeries = s.value();
                        busyLoras = s.labels().getOrDefault("running_lora_adapters", "");
                    }
                }
                case "vllm:external_prefix_cache_queries_total" -> tier[1] += s.value();
                case "vllm:external_prefix_cache_hits_total" -> tier[2] += s.value();
                case "vllm:kv_offload_load_bytes_total" -> {
                    tier[3] += s.value();
                    sawLoadSplit = true;
                }
                case "vllm:kv_offload_load_time_total" -> tier[4] += s.value();
                // Before the load/store split, one series per transfer_type; CPU_to_GPU is the load.
                case "vllm:kv_offload_total_bytes_total" -> tier[5] += "CPU_to_GPU".equals(s.labels().get("transfer_type")) ? s.value() : 0;
                case "vllm:kv_offload_total_time_total" -> tier[6] += "CPU_to_GPU".equals(s.labels().get("transfer_type")) ? s.value() : 0;
                default -> {
                }
            }
        }

        private LoraMetrics lora() {
            return maxLoras == 0 ? LoraMetrics.NONE : new LoraMetrics(maxLoras, adapterList(busyLoras));
        }

        ScrapedMetrics build(long nowNanos) {
            // A page that has both forms of the prefix counters reports the same tokens twice.
            double queries = sawCurrentPrefix ? v[3] : deprecatedPrefix[0];
            double hits = sawCurrentPrefix ? v[4] : deprecatedPrefix[1];
            double kv = kvSamples == 0 ? 0 : v[2] / kvSamples;
            // A page with both forms of the load counters (vLLM keeps the deprecated ones for a while) counts each load twice.
            HostTierMetrics hostTier = new HostTierMetrics(tier[0], tier[1], tier[2], sawLoadSplit ? tier[3] : tier[5],
                    sawLoadSplit ? tier[4] : tier[6]);
            return new ScrapedMetrics(nowNanos, v[0], v[1], kv, queries, hits, v[5], v[6], v[7], gpuBlocks, blockSize,
                    v[8], v[9], v[10], v[11], models, hostTier, lora());
        }
    }

    /** vLLM joins the adapters' names with commas ({@code ",".join}); an idle engine's label is empty. */
    private static java.util.List<String> adapterList(String joined) {
        return joined.isEmpty() ? java.util.List.of() : java.util.List.of(joined.split(","));
    }

    /** A Python float as vLLM's str() writes it ({@code "60.0"}); {@code "None"}, absent or unreadable: 0. */
    private static double parseDouble(String s) {
        if (s == null) {
            return 0;
        }
        try {
            double d = Double.parseDouble(s);
            return Double.isFinite(d) && d > 0 ? d : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
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
