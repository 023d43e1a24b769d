package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class ReplicaPodTest {

    @Test
    void aReadyPodOfTheStatefulSet() {
        ReplicaPod pod = ReplicaPod.of(pod("md-vllm-12", "Running", "True"), "md-vllm", false).orElseThrow();
        assertThat(pod.ordinal()).isEqualTo(12);
        assertThat(pod.revision()).isEqualTo("md-vllm-abc");
        assertThat(pod.ready()).isTrue();
        assertThat(pod.terminating()).isFalse();
        assertThat(pod.notReadySince()).isNull();
        assertThat(pod.trouble()).isEmpty();
    }

    @Test
    void otherPodsAreNoReplicas() {
        assertThat(ReplicaPod.of(pod("md-vllm-x", "Running", "True"), "md-vllm", false)).isEmpty();
        assertThat(ReplicaPod.of(pod("md-vllm-big-0", "Running", "True"), "md-vllm", false)).isEmpty();
    }

    @Test
    void notReadySinceItsReadyConditionTurnedAndStuckWhenItCrashLoops() {
        Pod crashing = new PodBuilder(pod("md-vllm-1", "Running", "False")).editStatus()
                .addNewContainerStatus().withName("vllm").withRestartCount(5).withNewState().withNewWaiting().withReason("CrashLoopBackOff")
                .withMessage("back-off 2m40s").endWaiting().endState().endContainerStatus().endStatus().build();
        ReplicaPod pod = ReplicaPod.of(crashing, "md-vllm", false).orElseThrow();
        assertThat(pod.ready()).isFalse();
        assertThat(pod.notReadySince()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(pod.trouble()).contains("container vllm CrashLoopBackOff after 5 restarts (back-off 2m40s)");

        Pod pulling = new PodBuilder(pod("md-vllm-1", "Pending", "False")).editStatus()
                .addNewContainerStatus().withName("vllm").withRestartCount(0).withNewState().withNewWaiting().withReason("ContainerCreating")
                .endWaiting().endState().endContainerStatus().endStatus().build();
        assertThat(ReplicaPod.of(pulling, "md-vllm", false).orElseThrow().trouble()).as("still coming up").isEmpty();
        assertThat(ReplicaPod.of(pod("md-vllm-1", "Failed", "False"), "md-vllm", false).orElseThrow().trouble()).hasValueSatisfying(t ->
                assertThat(t).startsWith("pod Failed"));
    }

    @Test
    void deletedIsGoingWhetherTheApiServerSaysSoOrTheOperatorJustDidIt() {
        assertThat(ReplicaPod.of(pod("md-vllm-0", "Running", "True"), "md-vllm", true).orElseThrow().terminating()).isTrue();
        Pod deleting = new PodBuilder(pod("md-vllm-0", "Running", "True")).editMetadata().withDeletionTimestamp("2026-12-01T10:01:00Z")
                .endMetadata().build();
        assertThat(ReplicaPod.of(deleting, "md-vllm", false).orElseThrow().terminating()).isTrue();
    }

    private static Pod pod(String name, String phase, String ready) {
        return new PodBuilder().withNewMetadata().withName(name).withUid("u-" + name).withResourceVersion("7")
                .addToLabels(ReplicaPod.REVISION_LABEL, "md-vllm-abc").withCreationTimestamp("2026-12-01T09:59:00Z").endMetadata()
                .withNewStatus().withPhase(phase)
                .addNewCondition().withType("Ready").withStatus(ready).withLastTransitionTime("2026-12-01T10:00:00Z").endCondition()
                .endStatus().build();
    }
}
