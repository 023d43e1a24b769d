package io.lmwarden.bench.workload;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class AdapterMixTest {

    private static final AdapterMix MIX = new AdapterMix(16, 1.0, 0.5);

    private static SessionClass agents() {
        return WorkloadFile.parse("classes:\n  - name: agents\n", "w.yaml").classes().get(0);
    }

    @Test
    void sessionsSplitBetweenTheBaseModelAndAdaptersOfZipfPopularity() {
        SessionClass cls = agents();
        int sessions = 20_000;
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < sessions; i++) {
            String adapter = new SessionScript(cls, i, 1).adapter(MIX);
            counts.merge(adapter == null ? "base" : adapter, 1, Integer::sum);
        }
        assertThat(counts.get("base") / (double) sessions).as("share of base-model sessions").isCloseTo(0.5, within(0.015));
        assertThat(counts.keySet()).as("every adapter is used, and no other name").hasSize(17)
                .containsAll(MIX.names()).contains("base");
        int onAdapters = sessions - counts.get("base");
        // Zipf(1) over 16: the first is chosen 1 / H(16) = 29.6 % of the time, the k-th 1/k as often as the first.
        assertThat(MIX.popularity(1)).isCloseTo(0.2957, within(0.0005));
        assertThat(MIX.popularity(2)).isCloseTo(MIX.popularity(1) / 2, within(1e-12));
        for (int k = 1; k <= 16; k++) {
            assertThat(counts.get(MIX.name(k)) / (double) onAdapters).as("share of adapter %d", k)
                    .isCloseTo(MIX.popularity(k), within(0.012));
        }
        assertThat(counts.get("lora-01")).isGreaterThan(counts.get("lora-02"));
        assertThat(counts.get("lora-02")).isGreaterThan(counts.get("lora-04"));
        assertThat(counts.get("lora-04")).isGreaterThan(counts.get("lora-16"));
    }

    @Test
    void namesSortByPopularityAndASessionKeepsItsAdapterInEveryRun() {
        assertThat(MIX.names()).hasSize(16).startsWith("lora-01", "lora-02").endsWith("lora-16");
        assertThat(new AdapterMix(3, 1, 1).names()).containsExactly("lora-01", "lora-02", "lora-03");
        SessionClass cls = agents();
        for (int i = 0; i < 50; i++) {
            // the run nonce changes the session id, never the session's model
            assertThat(new SessionScript(cls, i, 1).adapter(MIX)).isEqualTo(new SessionScript(cls, i, 99).adapter(MIX));
            assertThat(SessionScript.steady(cls, i, 1).adapter(MIX)).isEqualTo(SessionScript.steady(cls, i, 2).adapter(MIX));
        }
        assertThat(new SessionScript(cls, 0, 1).adapter(AdapterMix.NONE)).isNull();
        int onAdapter = 0;
        for (int i = 0; i < 100; i++) {
            onAdapter += new SessionScript(cls, i, 1).adapter(new AdapterMix(4, 1, 1)) != null ? 1 : 0;
        }
        assertThat(onAdapter).as("share 1: every session on an adapter").isEqualTo(100);
    }

    @Test
    void anAdaptersSessionsShareASystemPromptOfTheirOwn() {
        SessionClass cls = agents();
        String base = SharedPrompt.of(cls);
        String one = SharedPrompt.of(cls, "lora-01");
        String two = SharedPrompt.of(cls, "lora-02");
        assertThat(one).hasSameSizeAs(base).isEqualTo(SharedPrompt.of(cls, "lora-01"));
        assertThat(one.substring(0, 64)).isNotEqualTo(base.substring(0, 64)).isNotEqualTo(two.substring(0, 64));
        assertThat(SharedPrompt.of(cls, null)).isEqualTo(base);
        assertThat(cls.systemLabel("lora-01")).isEqualTo("system@lora-01");
    }

    @Test
    void theWorkloadFileFieldParsesWithDefaultsAndRefusesBadValues() {
        Workload w = WorkloadFile.parse("adapters: {count: 8}\nclasses:\n  - name: a\n", "w.yaml");
        assertThat(w.adapters()).isEqualTo(new AdapterMix(8, 1.0, 0.5));
        assertThat(w.reseeded(1).adapters()).isEqualTo(w.adapters());
        assertThat(WorkloadFile.parse("classes:\n  - name: a\n", "w.yaml").adapters().present()).isFalse();
        assertThat(WorkloadFile.read(Path.of("workloads/lora-adapters.yaml")).adapters()).isEqualTo(MIX);
        assertThatThrownBy(() -> WorkloadFile.parse("adapters: {zipf: 1}\nclasses:\n  - name: a\n", "w.yaml"))
                .hasMessageContaining("w.yaml: adapters.count");
        assertThatThrownBy(() -> WorkloadFile.parse("adapters: {count: 4, share: 1.5}\nclasses:\n  - name: a\n", "w.yaml"))
                .hasMessageContaining("w.yaml").hasMessageContaining("adapters.share");
        assertThatThrownBy(() -> WorkloadFile.parse("adapters: {count: 4, popularity: 1}\nclasses:\n  - name: a\n", "w.yaml"))
                .hasMessageContaining("unknown key 'popularity'");
    }
}
