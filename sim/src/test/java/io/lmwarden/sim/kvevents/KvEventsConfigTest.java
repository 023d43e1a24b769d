package io.lmwarden.sim.kvevents;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KvEventsConfigTest {
    @Test
    void takesVllmsJsonWithVllmsDefaults() {
        KvEventsConfig c = KvEventsConfig.parse("{\"enable_kv_cache_events\":true}");
        assertThat(c.publishes()).as("the publisher defaults to zmq when events are on").isTrue();
        assertThat(c.endpoint()).isEqualTo("tcp://*:5557");
        assertThat(c.replayEndpoint()).isNull();
        assertThat(c.bufferSteps()).isEqualTo(10_000);
        assertThat(c.hwm()).isEqualTo(100_000);
        assertThat(c.topic()).isEmpty();
        assertThat(KvEventsConfig.parse("{}").publishes()).isFalse();
        assertThat(KvEventsConfig.parse("{\"enable_kv_cache_events\":true,\"publisher\":\"null\"}").publishes()).isFalse();
    }

    @Test
    void refusesWhatVllmRefuses() {
        assertThatThrownBy(() -> KvEventsConfig.parse("{\"enable_kv_cache_events\":true,\"endpoints\":\"x\"}"))
                .hasMessageContaining("unknown key 'endpoints'");
        assertThatThrownBy(() -> KvEventsConfig.parse("{\"publisher\":\"kafka\"}")).hasMessageContaining("publisher");
        assertThatThrownBy(() -> KvEventsConfig.parse("[1]")).hasMessageContaining("JSON object");
    }

    @Test
    void offsetsTheTcpPortByTheRankAsVllmDoes() {
        assertThat(KvEventsConfig.forRank("tcp://*:5557", 0)).isEqualTo("tcp://*:5557");
        assertThat(KvEventsConfig.forRank("tcp://*:5557", 3)).isEqualTo("tcp://*:5560");
        assertThat(KvEventsConfig.forRank("inproc://cache", 2)).isEqualTo("inproc://cache_dp2");
        assertThat(KvEventsConfig.forRank(null, 2)).isNull();
    }

    @Test
    void portZeroStaysZeroForEveryRankSoEachBindsAnEphemeralPortOfItsOwn() {
        assertThat(KvEventsConfig.forRank("tcp://*:0", 1)).isEqualTo("tcp://*:0");
        assertThat(KvEventsConfig.forRank("tcp://*:0", 3)).isEqualTo("tcp://*:0");
    }
}
