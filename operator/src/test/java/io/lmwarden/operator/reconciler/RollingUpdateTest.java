package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rolling updates of the replica pods, by the operator as it ships, against fabric8's CRUD mock API server with
 * {@link StatefulSetControllerStandIn} playing the StatefulSet controller. Every pod deletion is recorded by a
 * watch; "the next one only after Ready" is checked at the moment the operator has provably seen the replaced pod
 * start (its status names the pod it waits for), so no sleep decides the outcome.
 */
@EnableKubernetesMockClient(https = false, crud = true, kubernetesClientBuilderCustomizer = PatientMockClient.class)
class RollingUpdateTest {
    private static final String NS = "agents";
    private static final String MD = "qwen3-4b";
    private static final String STS = "qwen3-4b-vllm";
    /** Only turns a hang into a failure (generous: 2 shared cores at load 30); no wait here bounds the operator's speed. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    KubernetesClient client;
    private MockCluster cluster;
    private StatefulSetControllerStandIn controller;
    private Operator operator;
    private Watch watch;
    private final List<String> deleted = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        cluster = new MockCluster(client, NS);
        controller = new StatefulSetControllerStandIn(client, NS);
        operator = cluster.startOperator();
        watch = client.pods().inNamespace(NS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                if (action == Action.DELETED) {
                    deleted.add(pod.getMetadata().getName());
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
    }

    @AfterEach
    void stop() {
        // Either may be missing when start() failed; its error is the one to see.
        if (watch != null) {
            watch.close();
        }
        if (operator != null) {
            operator.stop();
        }
    }

    @Test
    void aNewImageReplacesOneDrainedReplicaAtATimeHighestOrdinalFirstAndEachOnlyAfterThePreviousIsReady() {
        runningWithFourReadyReplicas(SampleModelDeployments.qwenDp4(NS));
        String before = controller.sync(STS);

        String after = changePodTemplate("{\"spec\":{\"image\":\"vllm/vllm-openai:v0.12.0\"}}",
                c -> c.getImage().equals("vllm/vllm-openai:v0.12.0"));
        assertThat(after).isNotEqualTo(before);
        assertThat(controller.pods(STS)).as("OnDelete: the template change alone replaces no pod").hasSize(4)
                .allSatisfy(p -> assertThat(p.getMetadata().getLabels()).containsEntry(ReplicaPod.REVISION_LABEL, before));

        for (int step = 0; step < 4; step++) {
            String replaced = STS + "-" + (3 - step);
            int count = step + 1;
            int updatedBefore = step;
            Eventually.await(count + " pod(s) deleted", TIMEOUT, () -> deleted.size() >= count);
            assertThat(deleted).as("one at a time, highest ordinal first").hasSize(count).last().isEqualTo(replaced);
            Eventually.await("Progressing RollingUpdate, replica " + updatedBefore + " of 4 updated", TIMEOUT,
                    () -> cluster.condition(MD, "Progressing").map(c -> c.getReason().equals("RollingUpdate")
                            && c.getMessage().startsWith("replica " + updatedBefore + " of 4 updated")).orElse(false));

            controller.sync(STS); // the StatefulSet recreates the pod from the new template
            assertThat(controller.pod(replaced).getMetadata().getLabels()).containsEntry(ReplicaPod.REVISION_LABEL, after);
            Eventually.await("the operator saw " + replaced + " start", TIMEOUT, () -> cluster.condition(MD, "Progressing")
                    .map(c -> c.getMessage().contains("waiting for " + replaced + " to become Ready")).orElse(false));
            assertThat(deleted).as("nothing more goes while " + replaced + " is not Ready").hasSize(count);

            controller.markReady(replaced);
            controller.sync(STS);
        }
        // The last pod's Ready and the StatefulSet's readyReplicas are two writes, as they are in a cluster (kubelet, then
        // the StatefulSet controller): between them the operator may already say RolloutComplete with 3/4 ready. The
        // rollout is over once its status says both.
        Eventually.await("rollout complete with every replica Ready", TIMEOUT, () -> {
            ModelDeployment now = cluster.get(MD);
            return MockCluster.condition(now, "Progressing").map(c -> c.getReason().equals("RolloutComplete")).orElse(false)
                    && MockCluster.condition(now, "Ready").map(c -> c.getStatus().equals("True")).orElse(false);
        }, () -> {
            // The status and the pods as the API server has them: this is how the stale-base status patch was found
            // (server at "3/4 ready, Degraded" with every pod Ready, after the operator's last write said 4/4; see
            // ModelDeploymentReconciler.writeStatus).
            ModelDeployment now = cluster.get(MD);
            return "status " + now.getStatus().getConditions().stream().map(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason()
                    + " (" + c.getMessage() + ")").toList() + " updatedReplicas=" + now.getStatus().getUpdatedReplicas()
                    + "; pods " + controller.pods(STS).stream().map(p -> p.getMetadata().getName() + " rev="
                    + p.getMetadata().getLabels().get(ReplicaPod.REVISION_LABEL) + " uid=" + p.getMetadata().getUid()
                    + " ready=" + (p.getStatus() == null ? null : p.getStatus().getConditions())).toList();
        });
        ModelDeployment md = cluster.get(MD);
        assertThat(md.getStatus().getUpdatedReplicas()).isEqualTo(4);
        assertThat(MockCluster.condition(md, "Degraded")).as("a rolling update is no outage")
                .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("False"));
        assertThat(deleted).containsExactly(STS + "-3", STS + "-2", STS + "-1", STS + "-0");
        assertThat(controller.pods(STS)).allSatisfy(p -> assertThat(p.getMetadata().getLabels()).containsEntry(ReplicaPod.REVISION_LABEL, after));

        // kubectl describe md: one Event per replaced replica, and the Progressing transitions.
        List<Event> rolling = cluster.eventsOf(MD).stream().filter(e -> e.getReason().equals("RollingUpdate")).toList();
        assertThat(rolling).extracting(Event::getMessage)
                .anyMatch(m -> m.startsWith("replacing " + STS + "-3 ") && m.contains("0 of 4 replicas updated"))
                .anyMatch(m -> m.startsWith("replacing " + STS + "-0 ") && m.contains("3 of 4 replicas updated"))
                .anyMatch(m -> m.startsWith("Progressing=True: replica 0 of 4 updated"));
        assertThat(cluster.eventsOf(MD)).extracting(Event::getReason).contains("RolloutComplete");
    }

    @Test
    void aCrashLoopingNewReplicaPausesTheRolloutAsDegradedAndRevertingTheSpecRollsItBack() {
        runningWithFourReadyReplicas(SampleModelDeployments.qwenDp4(NS));
        String good = controller.sync(STS);

        changePodTemplate("{\"spec\":{\"extraArgs\":[\"--no-such-flag\"]}}", c -> c.getArgs().contains("--no-such-flag"));
        Eventually.await("first replica replaced", TIMEOUT, () -> deleted.size() >= 1);
        assertThat(deleted).containsExactly(STS + "-3");
        controller.sync(STS);
        controller.markCrashLooping(STS + "-3");

        Eventually.await("Degraded=True", TIMEOUT, () -> "True".equals(cluster.conditionStatus(MD, "Degraded")));
        assertThat(cluster.condition(MD, "Degraded")).hasValueSatisfying(c -> {
            assertThat(c.getReason()).isEqualTo("ReplicaFailing");
            assertThat(c.getMessage()).contains(STS + "-3", "CrashLoopBackOff", "rolling update is paused with 0 of 4 replicas updated");
        });
        assertThat(cluster.condition(MD, "Progressing")).hasValueSatisfying(c -> {
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("RolloutPaused");
        });
        assertThat(deleted).as("paused: the three old replicas keep serving").containsExactly(STS + "-3");
        Eventually.await("a Warning Event", TIMEOUT, () -> cluster.eventsOf(MD).stream()
                .anyMatch(e -> e.getReason().equals("ReplicaFailing") && e.getType().equals("Warning")));

        // Reverting the change makes the old template current again: the failing pod is the one outdated pod now.
        cluster.jsonPatch(MD, "[{\"op\":\"remove\",\"path\":\"/spec/extraArgs\"}]");
        Eventually.await("template reverted", TIMEOUT, () -> !sts().getSpec().getTemplate().getSpec().getContainers().get(0).getArgs()
                .contains("--no-such-flag"));
        assertThat(controller.sync(STS)).as("the same template is the same revision").isEqualTo(good);
        Eventually.await("the failing pod replaced", TIMEOUT, () -> deleted.size() >= 2);
        assertThat(deleted).containsExactly(STS + "-3", STS + "-3");
        controller.sync(STS);
        controller.markReady(STS + "-3");
        controller.sync(STS);
        Eventually.await("Degraded=False", TIMEOUT, () -> "False".equals(cluster.conditionStatus(MD, "Degraded")));
        Eventually.await("rollout complete", TIMEOUT, () -> cluster.condition(MD, "Progressing")
                .map(c -> c.getReason().equals("RolloutComplete")).orElse(false));
        assertThat(deleted).as("the replicas that never changed were never touched").hasSize(2);
    }

    @Test
    void aNewReplicaNotReadyWithinTheReadyTimeoutPausesTheRollout() {
        ModelDeployment md = SampleModelDeployments.qwenDp4(NS);
        md.getSpec().setReadyTimeout("2s");
        runningWithFourReadyReplicas(md);
        controller.sync(STS);

        changePodTemplate("{\"spec\":{\"maxModelLen\":8192}}", c -> c.getArgs().contains("8192"));
        Eventually.await("first replica replaced", TIMEOUT, () -> deleted.size() >= 1);
        assertThat(deleted).containsExactly(STS + "-3");
        controller.sync(STS); // recreated, and it never turns Ready

        Eventually.await("Degraded=True after the ready timeout", TIMEOUT, () -> "True".equals(cluster.conditionStatus(MD, "Degraded")));
        assertThat(cluster.condition(MD, "Degraded")).hasValueSatisfying(c -> {
            assertThat(c.getReason()).isEqualTo("ReplicaFailing");
            assertThat(c.getMessage()).contains(STS + "-3", "not Ready 2s after it started");
        });
        assertThat(deleted).containsExactly(STS + "-3");
    }

    @Test
    void maxUnavailableTwoReplacesTwoAtATime() {
        ModelDeployment md = SampleModelDeployments.qwenDp4(NS);
        md.getSpec().setMaxUnavailable(2);
        runningWithFourReadyReplicas(md);
        controller.sync(STS);

        changePodTemplate("{\"spec\":{\"maxModelLen\":8192}}", c -> c.getArgs().contains("8192"));
        Eventually.await("two replicas replaced", TIMEOUT, () -> deleted.size() >= 2);
        assertThat(deleted).containsExactlyInAnyOrder(STS + "-3", STS + "-2");
        controller.sync(STS);
        Eventually.await("the operator saw both start", TIMEOUT, () -> cluster.condition(MD, "Progressing")
                .map(c -> c.getMessage().contains("waiting for " + STS + "-2, " + STS + "-3 to become Ready")
                        || c.getMessage().contains("waiting for " + STS + "-3, " + STS + "-2 to become Ready")).orElse(false));
        assertThat(deleted).hasSize(2);

        controller.markReady(STS + "-3");
        Eventually.await("one more once one is Ready", TIMEOUT, () -> deleted.size() >= 3);
        assertThat(deleted).hasSize(3);
        assertThat(deleted.get(2)).isEqualTo(STS + "-1");
    }

    /** Creates the ModelDeployment, lets the StatefulSet make its pods, and marks them and the router Ready. */
    private void runningWithFourReadyReplicas(ModelDeployment md) {
        client.resource(md).create();
        Eventually.await("StatefulSet and router", TIMEOUT, () -> sts() != null
                && client.apps().deployments().inNamespace(NS).withName(MD + "-router").get() != null);
        assertThat(sts().getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
        controller.sync(STS);
        for (int i = 0; i < 4; i++) {
            controller.markReady(STS + "-" + i);
        }
        controller.sync(STS);
        cluster.routerReady(MD + "-router");
        Eventually.await("Ready=True", TIMEOUT, () -> "True".equals(cluster.conditionStatus(MD, "Ready")));
        assertThat(deleted).isEmpty();
    }

    /** Patches the spec, waits until the operator wrote the new pod template, and lets the StatefulSet controller see it. */
    private String changePodTemplate(String mergePatch, java.util.function.Predicate<io.fabric8.kubernetes.api.model.Container> applied) {
        cluster.patchSpec(MD, mergePatch);
        Eventually.await("new pod template", TIMEOUT, () -> applied.test(sts().getSpec().getTemplate().getSpec().getContainers().get(0)));
        return controller.sync(STS);
    }

    private StatefulSet sts() {
        return client.apps().statefulSets().inNamespace(NS).withName(STS).get();
    }
}
