package io.lmwarden.sim.kvevents;

import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.engine.FinishedRequest;
import io.lmwarden.sim.engine.RequestListener;
import io.lmwarden.sim.engine.SimClock;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.lora.Adapter;
import io.lmwarden.sim.lora.LoraOptions;
import io.lmwarden.sim.lora.LoraRequestsInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An adapter's blocks are announced with its {@code lora_id} and {@code lora_name} and with its name first in every
 * block's extra keys (then the salt on block 0), as vLLM's block pool writes BlockStored; decoded by the test's decoder
 * written from {@code vllm/distributed/kv_events.py}, in both encodings.
 */
class LoraKvEventsTest {

    @Test
    void blockStoredCarriesTheAdapter() throws Exception {
        List<KvCacheEvent> events = new ArrayList<>();
        Engine engine = new Engine(0, SimProfile.named("tiny"), new SimClock(50));
        engine.useLora(LoraOptions.of(List.of(), 1, null, 16, false), new LoraRequestsInfo(1));
        engine.publishKvEvents(batch -> {
            synchronized (events) {
                events.addAll(batch);
            }
        }, false);
        engine.start();
        try {
            CountDownLatch done = new CountDownLatch(1);
            int[] prompt = new int[40];
            for (int i = 0; i < prompt.length; i++) {
                prompt[i] = 1000 + i;
            }
            engine.submit(prompt, new int[] {7, 8}, true, "salty", new Adapter("alpha", 3, "/a", "base"), new RequestListener() {
                @Override
                public void onTokens(int generated, int cachedTokens, boolean first) {
                }

                @Override
                public void onFinished(FinishedRequest result) {
                    done.countDown();
                }
            });
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            engine.close();
        }
        KvCacheEvent.BlockStored stored;
        synchronized (events) {
            stored = (KvCacheEvent.BlockStored) events.stream().filter(e -> e instanceof KvCacheEvent.BlockStored).findFirst()
                    .orElseThrow();
        }
        for (KvEventsConfig.Encoding encoding : KvEventsConfig.Encoding.values()) {
            VllmKvEventDecoder.Event e = VllmKvEventDecoder.decode(new KvEventEncoder(encoding).encode(1.0, List.of(stored), 0))
                    .events().get(0);
            assertThat(e.fields().get("lora_id").asIntegerValue().asInt()).isEqualTo(3);
            assertThat(e.fields().get("lora_name").asStringValue().asString()).isEqualTo("alpha");
            var extra = e.fields().get("extra_keys").asArrayValue();
            assertThat(extra.get(0).asArrayValue().list()).extracting(v -> v.asStringValue().asString())
                    .containsExactly("alpha", "salty");
            assertThat(extra.get(1).asArrayValue().list()).extracting(v -> v.asStringValue().asString()).containsExactly("alpha");
        }
    }
}
