package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.ModelDeploymentStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StatusCalculatorTest {
    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    private static final Instant T1 = Instant.parse("2026-01-01T10:05:00Z");
    private final StatusCalculator calculator = new StatusCalculator();

    @Test
    void nothingCreatedYetIsProgressingAndNotReady() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        ModelDeploymentStatus status = calculator.compute(md, Optional.empty(), Optional.empty(), RolloutStep.unknown(), T0);

        assertThat(status.getObservedGeneration()).isEqualTo(1L);
        assertThat(status.getReadyReplicas()).isZero();
        assertThat(status.getRouterReady()).isFalse();
        assertThat(status.getEndpoint()).isEqualTo("http://qwen3-4b.ns.svc");
        assertCondition(status, "Ready", "False", "ReplicasNotReady");
        assertCondition(status, "Progressing", "True", "RollingOut");
        assertCondition(status, "Degraded", "False", "AsExpected");
    }

    @Test
    void podsStartingAfterRolloutAreWaitingNotDegraded() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        ModelDeploymentStatus status = calculator.compute(md, Optional.of(sts(4, 4, 1)), Optional.of(router(1, 0)), RolloutStep.unknown(), T0);
        assertThat(status.getReadyReplicas()).isEqualTo(1);
        assertCondition(status, "Ready", "False", "ReplicasNotReady");
        assertCondition(status, "Progressing", "True", "WaitingForPods");
        assertCondition(status, "Degraded", "False", "AsExpected");
    }

    @Test
    void allReplicasAndRouterReadyIsReady() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        ModelDeploymentStatus status = calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0);
        assertThat(status.getReadyReplicas()).isEqualTo(4);
        assertThat(status.getRouterReady()).isTrue();
        assertCondition(status, "Ready", "True", "AllReplicasReady");
        assertCondition(status, "Progressing", "False", "RolloutComplete");
        assertCondition(status, "Degraded", "False", "AsExpected");
    }

    @Test
    void aReadyDataParallelServerPodIsAllItsReplicasReady() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.getSpec().setReplicaLayout("dataParallelServer");
        ModelDeploymentStatus status = calculator.compute(md, Optional.of(sts(1, 1, 1)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0);
        assertThat(status.getReadyReplicas()).isEqualTo(4);
        assertCondition(status, "Ready", "True", "AllReplicasReady");
        assertCondition(status, "Progressing", "False", "RolloutComplete");
        ModelDeploymentStatus down = calculator.compute(md, Optional.of(sts(1, 1, 0)), Optional.of(router(1, 1)), RolloutStep.unknown(), T1);
        assertThat(down.getReadyReplicas()).isZero();
        assertCondition(down, "Ready", "False", "ReplicasNotReady");
    }

    @Test
    void replicasReadyButNoRouterIsNotReady() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        ModelDeploymentStatus status = calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 0)), RolloutStep.unknown(), T0);
        assertCondition(status, "Ready", "False", "RouterNotReady");
    }

    @Test
    void losingAReplicaAfterBeingReadyIsDegradedAndTransitionTimesMoveOnlyOnFlips() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.setStatus(calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0));

        ModelDeploymentStatus after = calculator.compute(md, Optional.of(sts(4, 4, 3)), Optional.of(router(1, 1)), RolloutStep.unknown(), T1);
        assertCondition(after, "Ready", "False", "ReplicasNotReady");
        assertCondition(after, "Degraded", "True", "ReplicasUnavailable");
        assertCondition(after, "Progressing", "False", "RolloutComplete");
        assertThat(condition(after, "Ready").getLastTransitionTime()).isEqualTo(T1.toString());
        assertThat(condition(after, "Progressing").getLastTransitionTime()).isEqualTo(T0.toString());
    }

    @Test
    void scalingIsProgressingUntilTheStatefulSetCatchesUp() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.setStatus(calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0));
        md.getSpec().setDataParallelSize(2);
        md.getMetadata().setGeneration(2L);

        StatefulSet stillFour = sts(4, 4, 4);
        ModelDeploymentStatus scaling = calculator.compute(md, Optional.of(stillFour), Optional.of(router(1, 1)), RolloutStep.unknown(), T1);
        assertThat(scaling.getObservedGeneration()).isEqualTo(2L);
        assertCondition(scaling, "Progressing", "True", "RollingOut");
        assertCondition(scaling, "Degraded", "False", "AsExpected");

        ModelDeploymentStatus done = calculator.compute(md, Optional.of(sts(2, 2, 2)), Optional.of(router(1, 1)), RolloutStep.unknown(), T1);
        assertCondition(done, "Ready", "True", "AllReplicasReady");
        assertCondition(done, "Progressing", "False", "RolloutComplete");
    }

    @Test
    void unchangedInputsGiveAnEqualStatusSoNoPatchIsSent() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.setStatus(calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0));
        assertThat(calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T1)).isEqualTo(md.getStatus());
    }

    @Test
    void aFailedReconciliationIsDegradedWithTheRootCause() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        ModelDeploymentStatus status = calculator.failed(md,
                new RuntimeException("workflow failed", new IllegalArgumentException("router.spillThreshold must be 'auto'")), T0);
        Condition degraded = assertCondition(status, "Degraded", "True", "ReconcileFailed");
        assertThat(degraded.getMessage()).isEqualTo("router.spillThreshold must be 'auto'");
        assertCondition(status, "Ready", "False", "ReconcileFailed");
    }

    @Test
    void replacingPodsIsProgressingRollingUpdateNotDegraded() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.setStatus(calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0));
        ReplicaPod draining = new ReplicaPod("qwen3-4b-vllm-2", "u", "1", 2, "old", true, true, null, Optional.empty(), Optional.empty());
        RolloutStep step = new RolloutStep(RolloutStep.Phase.ROLLING, 4, 1, List.of(), List.of(draining), List.of(), Optional.empty(),
                Optional.empty());

        ModelDeploymentStatus status = calculator.compute(md, Optional.of(sts(4, 2, 3)), Optional.of(router(1, 1)), step, T1);
        Condition progressing = assertCondition(status, "Progressing", "True", "RollingUpdate");
        assertThat(progressing.getMessage()).isEqualTo("replica 1 of 4 updated; replacing qwen3-4b-vllm-2 (draining)");
        assertCondition(status, "Degraded", "False", "AsExpected");
        assertCondition(status, "Ready", "False", "ReplicasNotReady");
        assertThat(status.getUpdatedReplicas()).isEqualTo(1);
        assertThat(StatusCalculator.rollingUpdateUnderWay(status)).isTrue();
    }

    @Test
    void aFailingNewReplicaIsDegradedAndPausesTheRollout() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.setStatus(calculator.compute(md, Optional.of(sts(4, 4, 4)), Optional.of(router(1, 1)), RolloutStep.unknown(), T0));
        RolloutStep step = new RolloutStep(RolloutStep.Phase.PAUSED, 4, 0, List.of(), List.of(), List.of(),
                Optional.of(new RolloutStep.Failure("qwen3-4b-vllm-3", "container vllm ImagePullBackOff")), Optional.empty());

        ModelDeploymentStatus status = calculator.compute(md, Optional.of(sts(4, 1, 3)), Optional.of(router(1, 1)), step, T1);
        Condition degraded = assertCondition(status, "Degraded", "True", "ReplicaFailing");
        assertThat(degraded.getMessage()).startsWith("qwen3-4b-vllm-3 of the current pod template: container vllm ImagePullBackOff; "
                + "the rolling update is paused with 0 of 4 replicas updated");
        assertCondition(status, "Progressing", "False", "RolloutPaused");
        assertThat(StatusCalculator.rollingUpdateUnderWay(status)).as("resumes where it stopped once fixed").isTrue();
        assertThat(ModelDeploymentEvents.transitions(md.getStatus(), status)).anySatisfy(n -> {
            assertThat(n.type()).isEqualTo("Warning");
            assertThat(n.reason()).isEqualTo("ReplicaFailing");
        });
    }

    @Test
    void onDeleteNeverMovesCurrentRevisionSoItDoesNotMeanRollingOut() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        StatefulSet updated = sts(4, 4, 4);
        updated.getStatus().setCurrentRevision("r0"); // what the StatefulSet controller leaves with OnDelete
        ModelDeploymentStatus status = calculator.compute(md, Optional.of(updated), Optional.of(router(1, 1)), RolloutStep.unknown(), T0);
        assertCondition(status, "Progressing", "False", "RolloutComplete");
    }

    private static StatefulSet sts(int specReplicas, int updated, int ready) {
        return new StatefulSetBuilder()
                .withNewMetadata().withName("qwen3-4b-vllm").withGeneration(3L).endMetadata()
                .withNewSpec().withReplicas(specReplicas).endSpec()
                .withNewStatus().withObservedGeneration(3L).withReplicas(specReplicas).withUpdatedReplicas(updated)
                .withReadyReplicas(ready).withCurrentRevision("r1").withUpdateRevision("r1").endStatus()
                .build();
    }

    private static Deployment router(int replicas, int ready) {
        return new DeploymentBuilder()
                .withNewMetadata().withName("qwen3-4b-router").withGeneration(1L).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec()
                .withNewStatus().withObservedGeneration(1L).withUpdatedReplicas(replicas).withReadyReplicas(ready).endStatus()
                .build();
    }

    private static Condition condition(ModelDeploymentStatus status, String type) {
        return status.getConditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    private static Condition assertCondition(ModelDeploymentStatus status, String type, String value, String reason) {
        Condition c = condition(status, type);
        assertThat(c.getStatus()).as(type + " status").isEqualTo(value);
        assertThat(c.getReason()).as(type + " reason").isEqualTo(reason);
        return c;
    }
}
