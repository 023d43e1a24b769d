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
}
