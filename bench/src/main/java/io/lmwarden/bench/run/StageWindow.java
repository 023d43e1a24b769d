package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaReading;

import java.util.List;
import java.util.Map;

/**
 * What one stage's measurement window collected, for {@link StageMeter}.
 *
 * @param sessions       the stage's key: its concurrency (a replay's window number)
 * @param concurrency    sessions in the system on average during the window (Little's law's L)
 * @param stageSeconds   window length, workload seconds
 * @param steps          the steps that ended within the window
 * @param before         engine counters at the window's start
 * @param after          engine counters at the window's end
 * @param busySamples    number of busy replicas at each sample
 * @param busyShare      per replica id, the share of busy samples in which it had a running request (0..1)
 * @param benchCpuCores  CPU the bench process used during the window, in cores
 * @param unfinishedAges sessions still running at the window's end: their ages, workload seconds
 * @param routers        how many routers the steps went to
 * @param callsPerSession the workload's mean calls (steps) per session, for the completion rate from the calls; NaN
 *                       when unknown
 */
public record StageWindow(String policy, int sessions, int repeat, double concurrency, double stageSeconds,
                          List<StepRecord> steps, List<ReplicaReading> before, List<ReplicaReading> after,
                          List<Integer> busySamples, Map<String, Double> busyShare, double benchCpuCores,
                          List<Double> unfinishedAges, int routers, double callsPerSession) {

    public StageWindow {
        steps = List.copyOf(steps);
        before = List.copyOf(before);
        after = List.copyOf(after);
        busySamples = List.copyOf(busySamples);
        busyShare = Map.copyOf(busyShare);
        unfinishedAges = List.copyOf(unfinishedAges);
    }
}
