package io.lmwarden.router.pool;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EngineMetricsParserTest {

    @Test
    void readsCurrentNamesAndSumsEngines() {
        String text = """
                # HELP vllm:num_requests_running Number of requests in model execution batches.
                # TYPE vllm:num_requests_running gauge
                vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-4B"} 3.0
                vllm:num_requests_running{engine="1",model_name="Qwen/Qwen3-4B"} 2.0
                vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-4B"} 1.0
                vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-4B"} 0.5
                vllm:kv_cache_usage_perc{engine="1",model_name="Qwen/Qwen3-4B"} 0.25
                vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen3-4B"} 1000.0
                vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen3-4B"} 750.0
                vllm:cache_config_info{block_size="16",num_gpu_blocks="2400",engine="0",model_name="Qwen/Qwen3-4B"} 1.0
                vllm:request_queue_time_seconds_sum{engine="0",model_name="Qwen/Qwen3-4B"} 2.5
                vllm:request_queue_time_seconds_count{engine="0",model_name="Qwen/Qwen3-4B"} 5.0
                """;
        ScrapedMetrics m = EngineMetricsParser.parse(text, 42);
        assertThat(m.running()).isEqualTo(5.0);
        assertThat(m.waiting()).isEqualTo(1.0);
        assertThat(m.kvCacheUsage()).isEqualTo(0.375);
        assertThat(m.prefixHitRate()).isEqualTo(0.75);
        assertThat(m.kvCapacityTokens()).isEqualTo(38_400);
        assertThat(m.queueTimeSum()).isEqualTo(2.5);
        assertThat(m.models()).containsExactly("Qwen/Qwen3-4B");
        assertThat(m.scrapedAtNanos()).isEqualTo(42);
    }

    @Test
    void keepsEachEngineOfADataParallelServerApart() {
        String text = """
                vllm:num_requests_running{engine="0",model_name="m"} 3.0
                vllm:num_requests_running{engine="1",model_name="m"} 2.0
                vllm:num_requests_waiting{engine="1",model_name="m"} 4.0
                vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
                vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.25
                vllm:prefix_cache_queries_total{engine="1",model_name="m"} 100.0
                vllm:prefix_cache_hits_total{engine="1",model_name="m"} 40.0
                vllm:cache_config_info{block_size="16",num_gpu_blocks="2400",engine="0",model_name="m"} 1.0
                vllm:cache_config_info{block_size="16",num_gpu_blocks="1200",engine="1",model_name="m"} 1.0
                vllm:num_requests_running{engine="x",model_name="m"} 9.0
                process_open_fds{engine="7"} 12.0
                """;
        EndpointMetrics m = EngineMetricsParser.parseEndpoint(text, 7);
        assertThat(m.engines()).containsExactly(0, 1);
        assertThat(m.byEngine().get(0).running()).isEqualTo(3.0);
        assertThat(m.byEngine().get(1).waiting()).isEqualTo(4.0);
        assertThat(m.byEngine().get(1).prefixHitRate()).isEqualTo(0.4);
        assertThat(m.byEngine().get(0).kvCapacityTokens()).isEqualTo(38_400);
        assertThat(m.byEngine().get(1).kvCapacityTokens()).isEqualTo(19_200);
        assertThat(m.total().running()).isEqualTo(14.0);
        assertThat(m.total().kvCapacityTokens()).isEqualTo(57_600);
    }

    @Test
    void declaredRanksFollowTheUrlAndABadDeclarationSaysHowToWriteIt() {
        assertThat(StaticReplicaDiscovery.parse("dp=http://10.0.0.5:8000#ranks=4"))
                .isEqualTo(new DiscoveredReplica("dp", "http://10.0.0.5:8000", true, 4));
        assertThat(StaticReplicaDiscovery.parse("http://10.0.0.5:8000").ranks()).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StaticReplicaDiscovery.parse("http://h:8000#ranks=four"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ranks=N");
    }

    @Test
    void acceptsTheDeprecatedNames() {
        String text = """
                vllm:gpu_cache_usage_perc{model_name="m"} 0.9
                vllm:gpu_prefix_cache_queries_total{model_name="m"} 200
                vllm:gpu_prefix_cache_hits_total{model_name="m"} 50
                """;
        ScrapedMetrics m = EngineMetricsParser.parse(text, 0);
        assertThat(m.kvCacheUsage()).isEqualTo(0.9);
        assertThat(m.prefixCacheQueries()).isEqualTo(200);
        assertThat(m.prefixHitRate()).isEqualTo(0.25);
    }

    @Test
    void labelValuesWithEscapesAndOddLinesDoNotBreakParsing() {
        String text = "vllm:num_requests_running{model_name=\"a \\\"quoted\\\" name\"} 7\n"
                + "garbage line without value\n"
                + "vllm:num_requests_waiting{model_name=\"x\"} NaN\n";
        ScrapedMetrics m = EngineMetricsParser.parse(text, 0);
        assertThat(m.running()).isEqualTo(7);
        assertThat(m.models()).contains("a \"quoted\" name");
    }

    @Test
    void readsTheHostKvTierAndLearnsItsBandwidthAndBytesPerToken() {
        // As vLLM's OffloadingConnector and the scheduler's connector counters publish them (sim/README.md names the commits).
        String text = """
                vllm:cache_config_info{block_size="16",num_gpu_blocks="2400",kv_offloading_size="26.37",kv_offloading_backend="native",engine="0"} 1.0
                vllm:prefix_cache_queries_total{engine="0",model_name="m"} 10000.0
                vllm:prefix_cache_hits_total{engine="0",model_name="m"} 6000.0
                vllm:external_prefix_cache_queries_total{engine="0",model_name="m"} 4000.0
                vllm:external_prefix_cache_hits_total{engine="0",model_name="m"} 3200.0
                vllm:kv_offload_load_bytes_total{engine="0",model_name="m"} 4.718592e+08
                vllm:kv_offload_load_time_total{engine="0",model_name="m"} 0.0188743680
                vllm:kv_offload_total_bytes_total{engine="0",model_name="m",transfer_type="CPU_to_GPU"} 4.718592e+08
                vllm:kv_offload_total_bytes_total{engine="0",model_name="m",transfer_type="GPU_to_CPU"} 9.9e+08
                """;
        HostTierMetrics t = EngineMetricsParser.parse(text, 0).hostTier();
        assertThat(t.present()).isTrue();
        assertThat(t.sizeGib()).isEqualTo(26.37);
        assertThat(t.hitRate()).isEqualTo(0.8);
        // The split counters win over the deprecated transfer_type ones: each load counted once.
        assertThat(t.loadBytes()).isEqualTo(471_859_200);
        assertThat(t.learned()).isTrue();
        assertThat(t.bytesPerToken()).isEqualTo(147_456);
        assertThat(t.loadBytesPerSecond()).isCloseTo(25e9, org.assertj.core.api.Assertions.within(1e3));
        assertThat(t.capacityTokens()).isEqualTo((long) (26.37 * (1L << 30) / 147_456));
        // 12,000 tokens at 25 GB/s: ~71 ms of engine time (the 12k-token working set).
        assertThat(t.loadEngineMillis(12_000)).isCloseTo(70.8, org.assertj.core.api.Assertions.within(0.1));
        // GPU hits stay GPU hits.
        assertThat(EngineMetricsParser.parse(text, 0).prefixHitRate()).isEqualTo(0.6);
    }

    @Test
    void readsTheDeprecatedTransferCountersAndNoTierWhenTheSizeIsNone() {
        String old = """
                vllm:cache_config_info{block_size="16",num_gpu_blocks="2400",kv_offloading_size="8.0",engine="0"} 1.0
                vllm:external_prefix_cache_hits_total{engine="0",model_name="m"} 1000.0
                vllm:kv_offload_total_bytes_total{engine="0",model_name="m",transfer_type="CPU_to_GPU"} 2.0e+08
                vllm:kv_offload_total_time_total{engine="0",model_name="m",transfer_type="CPU_to_GPU"} 0.01
                vllm:kv_offload_total_time_total{engine="0",model_name="m",transfer_type="GPU_to_CPU"} 5.0
                """;
        HostTierMetrics t = EngineMetricsParser.parse(old, 0).hostTier();
        assertThat(t.loadBytes()).isEqualTo(2.0e8);
        assertThat(t.loadBytesPerSecond()).isEqualTo(2.0e10);
        assertThat(t.bytesPerToken()).isEqualTo(200_000);

        String none = """
                vllm:cache_config_info{block_size="16",num_gpu_blocks="2400",kv_offloading_size="None",engine="0"} 1.0
                vllm:external_prefix_cache_queries_total{engine="0",model_name="m"} 0.0
                """;
        HostTierMetrics absent = EngineMetricsParser.parse(none, 0).hostTier();
        assertThat(absent.present()).isFalse();
        assertThat(absent.capacityTokens()).isZero();
        // Until loads tell, the priors: the reference model's bytes per token, PCIe 4.0's bandwidth.
        assertThat(absent.bytesPerToken()).isEqualTo(HostTierMetrics.PRIOR_BYTES_PER_TOKEN);
        assertThat(absent.loadBytesPerSecond()).isEqualTo(HostTierMetrics.PRIOR_BYTES_PER_SECOND);
    }

    /**
     * vLLM's LoRA gauge keeps every label set it was given and sets the newest to the wall-clock time
     * ({@code PrometheusStatLogger.record} in vllm/v1/metrics/loggers.py): the current adapters are the newest series'.
     */
    @Test
    void readsTheLoraGaugesNewestSeriesAndItsMaxLoras() {
        String text = """
                # HELP vllm:lora_requests_info Running stats on lora requests.
                # TYPE vllm:lora_requests_info gauge
                vllm:lora_requests_info{max_lora="4",waiting_lora_adapters="alpha,beta",running_lora_adapters="alpha,beta"} 1.765123456789e+09
                vllm:lora_requests_info{max_lora="4",waiting_lora_adapters="gamma",running_lora_adapters="gamma"} 1.765123470123e+09
                vllm:lora_requests_info{max_lora="4",waiting_lora_adapters="",running_lora_adapters=""} 1.765123460e+09
                vllm:num_requests_running{engine="0",model_name="m"} 1.0
                """;
        ScrapedMetrics m = EngineMetricsParser.parse(text, 1);
        assertThat(m.lora().maxLoras()).isEqualTo(4);
        assertThat(m.lora().busy()).containsExactly("gamma");
        assertThat(m.lora().published()).isTrue();
        assertThat(EngineMetricsParser.parse("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 1.0\n", 1).lora())
                .isEqualTo(LoraMetrics.NONE);
    }
}
