package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.report.AdapterFigures;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class AdapterMeterTest {

    private static StepRecord step(String adapter, int prompt, int cached, int oracle, String error) {
        return new StepRecord(0, 2, 0, 1, 2, "sim-0", "STICKY", 10, prompt, cached, oracle, true, false, error, 0, 0, false, 0,
                "agents", 1, adapter);
    }

    @Test
    void slotWaitsAndLoadsAreTheEnginesDeltasAndHitsAreSplitByTheSessionsModel() {
        List<StepRecord> steps = List.of(
                step("lora-01", 1000, 900, 950, null),
                step("lora-02", 1000, 500, 950, null),
                step(null, 2000, 1800, 1900, null),
                step("lora-01", 1000, -1, 0, "HTTP 503"));
        List<ReplicaReading> before = List.of(new ReplicaReading("sim-0", 0, 0, 0, 0, 0, 5, 2),
                new ReplicaReading("sim-1", 0, 0, 0, 0, 0, 1, 0));
        List<ReplicaReading> after = List.of(new ReplicaReading("sim-0", 0, 0, 0, 0, 0, 6, 4),
                new ReplicaReading("sim-1", 0, 0, 0, 0, 0, 2, 1));
        AdapterFigures a = AdapterMeter.measure(steps, before, after);
        assertThat(a.present()).isTrue();
        assertThat(a.steps()).isEqualTo(4);
        assertThat(a.adapterSteps()).isEqualTo(3);
        assertThat(a.slotWaits()).isEqualTo(2);
        assertThat(a.slotWaitPct()).isCloseTo(50.0, within(1e-9));
        assertThat(a.slotWaitPctOfAdapterSteps()).isCloseTo(200.0 / 3, within(1e-9));
        assertThat(a.diskLoads()).isEqualTo(3);
        // the failed step counts in the steps, not in the hits
        assertThat(a.adapterCachedPct()).isCloseTo(70.0, within(1e-9));
        assertThat(a.baseCachedPct()).isCloseTo(90.0, within(1e-9));
        assertThat(a.hitGapPoints()).isCloseTo(-20.0, within(1e-9));
        assertThat(a.adapterOraclePct()).isCloseTo(95.0, within(1e-9));
        assertThat(a.baseOraclePct()).isCloseTo(95.0, within(1e-9));
    }

    @Test
    void noStepOnAnAdapterMeansNoFiguresAndCountersASourceLacksAreUnknown() {
        List<ReplicaReading> none = List.of(new ReplicaReading("sim-0", 0, 0, 0, 0, 0));
        assertThat(AdapterMeter.measure(List.of(step(null, 1000, 500, 900, null)), none, none)).isEqualTo(AdapterFigures.NONE);
        AdapterFigures unknown = AdapterMeter.measure(List.of(step("lora-01", 1000, 500, 900, null)), none, none);
        assertThat(unknown.present()).isTrue();
        assertThat(unknown.slotWaits()).isNaN();
        assertThat(unknown.diskLoads()).isNaN();
        assertThat(unknown.baseCachedPct()).isNaN();
    }
}
