package io.lmwarden.operator.reconciler;

import io.lmwarden.operator.dependent.EffectiveSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class RolloutPlannerTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private static final EffectiveSpec.Rollout ONE = new EffectiveSpec.Rollout(1, Duration.ofMinutes(5), Duration.ofMinutes(30));
    private static final Optional<String> NEW = Optional.of("new");
    private final RolloutPlanner planner = new RolloutPlanner();

    @Test
    void untilTheControllerHasSeenTheTemplateNothingIsKnownAndNothingHappens() {
        RolloutStep step = planner.plan(4, Optional.empty(), pods(4, "old"), ONE, false, NOW);
        assertThat(step.phase()).isEqualTo(RolloutStep.Phase.UNKNOWN);
        assertThat(step.replace()).isEmpty();
    }

    @Test
    void everyPodCurrentIsIdle() {
        RolloutStep step = planner.plan(4, NEW, pods(4, "new"), ONE, false, NOW);
        assertThat(step.phase()).isEqualTo(RolloutStep.Phase.IDLE);
        assertThat(step.updated()).isEqualTo(4);
        assertThat(step.replace()).isEmpty();
    }

    @Test
    void allReadyAndOutdatedReplacesTheHighestOrdinalOnly() {
        RolloutStep step = planner.plan(4, NEW, pods(4, "old"), ONE, false, NOW);
        assertThat(step.phase()).isEqualTo(RolloutStep.Phase.ROLLING);
        assertThat(step.replace()).extracting(ReplicaPod::name).containsExactly("m-vllm-3");
        assertThat(step.progress()).isEqualTo("replica 0 of 4 updated; replacing m-vllm-3 (draining)");
        assertThat(step.recheckAfter()).contains(RolloutPlanner.HEARTBEAT);
    }

    @Test
    void whileOneIsDrainingOrStartingNoOtherGoes() {
        List<ReplicaPod> draining = pods(4, "old");
        draining.set(3, pod(3, "old", true, true));
        assertThat(planner.plan(4, NEW, draining, ONE, false, NOW).replace()).isEmpty();
        assertThat(planner.plan(4, NEW, draining, ONE, false, NOW).progress()).contains("replacing m-vllm-3 (draining)");

        List<ReplicaPod> starting = pods(4, "old");
        starting.set(3, pod(3, "new", false, false));
        RolloutStep step = planner.plan(4, NEW, starting, ONE, false, NOW);
        assertThat(step.replace()).isEmpty();
        assertThat(step.progress()).isEqualTo("replica 0 of 4 updated; waiting for m-vllm-3 to become Ready");

        List<ReplicaPod> gone = pods(3, "old"); // ordinal 3 deleted, not recreated yet
        assertThat(planner.plan(4, NEW, gone, ONE, false, NOW).replace()).as("a missing pod is unavailable").isEmpty();

        starting.set(3, pod(3, "new", true, false));
        assertThat(planner.plan(4, NEW, starting, ONE, false, NOW).replace()).extracting(ReplicaPod::name).containsExactly("m-vllm-2");
    }

    @Test
    void anUnrelatedUnavailableReplicaHoldsTheRolloutToo() {
        List<ReplicaPod> pods = pods(4, "old");
        pods.set(0, pod(0, "new", false, false)); // restarted on its own with the new template, still starting
        assertThat(planner.plan(4, NEW, pods, ONE, false, NOW).replace()).isEmpty();
        assertThat(planner.plan(4, NEW, pods, new EffectiveSpec.Rollout(2, Duration.ofMinutes(5), Duration.ofMinutes(30)), false, NOW)
                .replace()).extracting(ReplicaPod::name).containsExactly("m-vllm-3");
    }

    @Test
    void outdatedPodsThatServeNobodyGoAtOnce() {
        List<ReplicaPod> pods = pods(4, "old");
        pods.set(1, pod(1, "old", false, false));
        pods.set(2, pod(2, "old", false, false));
        RolloutStep step = planner.plan(4, NEW, pods, ONE, false, NOW);
        assertThat(step.replace()).extracting(ReplicaPod::name).containsExactly("m-vllm-2", "m-vllm-1");
    }

    @Test
    void maxUnavailableBoundsHowManyServingPodsGoTogether() {
        var two = new EffectiveSpec.Rollout(2, Duration.ofMinutes(5), Duration.ofMinutes(30));
        assertThat(planner.plan(4, NEW, pods(4, "old"), two, false, NOW).replace()).extracting(ReplicaPod::name)
                .containsExactly("m-vllm-3", "m-vllm-2");
        var all = new EffectiveSpec.Rollout(10, Duration.ofMinutes(5), Duration.ofMinutes(30));
        assertThat(planner.plan(4, NEW, pods(4, "old"), all, false, NOW).replace()).hasSize(4);
    }

    @Test
    void podsBeingScaledAwayAreLeftToTheStatefulSet() {
        RolloutStep step = planner.plan(2, NEW, pods(4, "old"), ONE, false, NOW);
        assertThat(step.desired()).isEqualTo(2);
        assertThat(step.replace()).extracting(ReplicaPod::name).containsExactly("m-vllm-1");
    }

    @Test
    void aCrashLoopingNewPodPausesTheRolloutAndIsReported() {
        List<ReplicaPod> pods = pods(4, "old");
        pods.set(3, new ReplicaPod("m-vllm-3", "u3", "1", 3, "new", false, false, NOW.minusSeconds(60),
                Optional.of("container vllm CrashLoopBackOff after 4 restarts"), Optional.empty()));
        RolloutStep step = planner.plan(4, NEW, pods, new EffectiveSpec.Rollout(4, Duration.ofMinutes(5), Duration.ofMinutes(30)), false, NOW);
        assertThat(step.phase()).isEqualTo(RolloutStep.Phase.PAUSED);
        assertThat(step.replace()).as("even with room for more").isEmpty();
        assertThat(step.failing()).contains(new RolloutStep.Failure("m-vllm-3", "container vllm CrashLoopBackOff after 4 restarts"));
    }

    @Test
    void aNewPodNotReadyByTheReadyTimeoutFailsAndUntilThenTheRolloutLooksAgainInTime() {
        List<ReplicaPod> pods = pods(4, "old");
        pods.set(3, new ReplicaPod("m-vllm-3", "u3", "1", 3, "new", false, false, NOW.minusSeconds(20), Optional.empty(), Optional.empty()));
        var fast = new EffectiveSpec.Rollout(1, Duration.ofMinutes(5), Duration.ofSeconds(30));
        RolloutStep waiting = planner.plan(4, NEW, pods, fast, false, NOW);
        assertThat(waiting.phase()).isEqualTo(RolloutStep.Phase.ROLLING);
        assertThat(waiting.recheckAfter()).contains(Duration.ofSeconds(11));

        pods.set(3, new ReplicaPod("m-vllm-3", "u3", "1", 3, "new", false, false, NOW.minusSeconds(30), Optional.empty(),
                Optional.of("not scheduled (Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu)")));
        RolloutStep failed = planner.plan(4, NEW, pods, fast, false, NOW);
        assertThat(failed.phase()).isEqualTo(RolloutStep.Phase.PAUSED);
        assertThat(failed.failing()).hasValueSatisfying(f -> assertThat(f.why())
                .isEqualTo("not Ready 30s after it started, not scheduled (Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu)"));
    }

    @Test
    void theRolloutLastsUntilItsLastPodIsReadyAndThenIsIdle() {
        List<ReplicaPod> pods = pods(4, "new");
        pods.set(0, pod(0, "new", false, false));
        RolloutStep last = planner.plan(4, NEW, pods, ONE, true, NOW);
        assertThat(last.phase()).isEqualTo(RolloutStep.Phase.ROLLING);
        assertThat(last.progress()).isEqualTo("replica 3 of 4 updated; waiting for m-vllm-0 to become Ready");
        assertThat(planner.plan(4, NEW, pods, ONE, false, NOW).phase()).as("a first start is no rollout").isEqualTo(RolloutStep.Phase.IDLE);
        assertThat(planner.plan(4, NEW, pods(4, "new"), ONE, true, NOW).phase()).isEqualTo(RolloutStep.Phase.IDLE);
    }

    @Test
    void aPodTheOperatorJustDeletedCountsAsGoing() {
        List<ReplicaPod> pods = pods(4, "old");
        pods.set(3, pod(3, "old", true, true));
        assertThat(planner.plan(4, NEW, pods, ONE, false, NOW).replace()).isEmpty();
    }

    private static List<ReplicaPod> pods(int count, String revision) {
        List<ReplicaPod> pods = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pods.add(pod(i, revision, true, false));
        }
        return pods;
    }

    private static ReplicaPod pod(int ordinal, String revision, boolean ready, boolean terminating) {
        return new ReplicaPod("m-vllm-" + ordinal, "u" + ordinal, "1", ordinal, revision, ready, terminating,
                ready ? null : NOW.minusSeconds(5), Optional.empty(), Optional.empty());
    }
}
