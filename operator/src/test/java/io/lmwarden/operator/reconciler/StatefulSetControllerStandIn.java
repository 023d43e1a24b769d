package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stands in for the part of kube-controller-manager's StatefulSet controller a rolling update relies on, which
 * fabric8's mock API server lacks. One {@link #sync} does what the controller does on its next pass over one
 * StatefulSet: its update revision becomes a hash of the current pod template (the same template gives the same
 * revision, as Kubernetes' ControllerRevisions do), every missing ordinal below {@code replicas} gets a pod made
 * from the template with that revision in its {@code controller-revision-hash} label, pods at or above
 * {@code replicas} go, and the status (observedGeneration, replicas, updatedReplicas, readyReplicas) follows.
 * Existing pods are never replaced: with the OnDelete strategy that is the operator's job. Pods the mock server
 * deletes vanish at once (no grace period), and readiness is whatever the test sets.
 */
final class StatefulSetControllerStandIn {
    private final KubernetesClient client;
    private final String namespace;

    StatefulSetControllerStandIn(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** One pass over the StatefulSet; returns its update revision. */
    String sync(String name) {
        StatefulSet sts = client.apps().statefulSets().inNamespace(namespace).withName(name).get();
        String revision = name + "-" + hash(client.getKubernetesSerialization().asJson(sts.getSpec().getTemplate()));
        int replicas = sts.getSpec().getReplicas();
        Map<Integer, Pod> pods = new LinkedHashMap<>();
        for (Pod pod : pods(name)) {
            int ordinal = Integer.parseInt(pod.getMetadata().getName().substring(name.length() + 1));
            if (ordinal >= replicas) {
                client.resource(pod).delete();
            } else {
                pods.put(ordinal, pod);
            }
        }
        for (int ordinal = 0; ordinal < replicas; ordinal++) {
            if (!pods.containsKey(ordinal)) {
                pods.put(ordinal, create(sts, ordinal, revision));
            }
        }
        long updated = pods.values().stream().filter(p -> revision.equals(p.getMetadata().getLabels().get(ReplicaPod.REVISION_LABEL))).count();
        long ready = pods.values().stream().filter(StatefulSetControllerStandIn::ready).count();
        sts.setStatus(new StatefulSetStatusBuilder().withObservedGeneration(sts.getMetadata().getGeneration())
                .withReplicas(pods.size()).withUpdatedReplicas((int) updated).withReadyReplicas((int) ready)
                .withAvailableReplicas((int) ready).withUpdateRevision(revision)
                .withCurrentRevision(sts.getStatus() == null ? revision : sts.getStatus().getCurrentRevision()).build());
        client.resource(sts).updateStatus();
        return revision;
    }

    List<Pod> pods(String statefulSet) {
        return client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith(statefulSet + "-")).toList();
    }

    Pod pod(String name) {
        return client.pods().inNamespace(namespace).withName(name).get();
    }

    void markReady(String pod) {
        setStatus(pod, true, null);
    }

    /** The container restarts and restarts: the kubelet's CrashLoopBackOff. */
    void markCrashLooping(String pod) {
        setStatus(pod, false, "CrashLoopBackOff");
    }

    private Pod create(StatefulSet sts, int ordinal, String revision) {
        Map<String, String> labels = new LinkedHashMap<>(sts.getSpec().getTemplate().getMetadata().getLabels());
        labels.put(ReplicaPod.REVISION_LABEL, revision);
        Pod pod = new PodBuilder()
                .withNewMetadata().withName(sts.getMetadata().getName() + "-" + ordinal).withNamespace(namespace).withLabels(labels)
                .withCreationTimestamp(now()).endMetadata()
                .withSpec(sts.getSpec().getTemplate().getSpec())
                .build();
        Pod created = client.resource(pod).create();
        created.setStatus(status(false, null));
        return client.resource(created).updateStatus();
    }

    private void setStatus(String name, boolean ready, String waitingReason) {
        Pod pod = pod(name);
        pod.setStatus(status(ready, waitingReason));
        client.resource(pod).updateStatus();
    }

    private static io.fabric8.kubernetes.api.model.PodStatus status(boolean ready, String waitingReason) {
        PodStatusBuilder status = new PodStatusBuilder().withPhase("Running")
                .addToConditions(new PodConditionBuilder().withType("PodScheduled").withStatus("True").withLastTransitionTime(now()).build())
                .addToConditions(new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                        .withLastTransitionTime(now()).build());
        if (waitingReason != null) {
            status.addToContainerStatuses(new ContainerStatusBuilder().withName("vllm").withReady(false).withRestartCount(4)
                    .withNewState().withNewWaiting().withReason(waitingReason).withMessage("back-off 1m20s restarting failed container")
                    .endWaiting().endState().build());
        }
        return status.build();
    }

    static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String hash(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)), 0, 5);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
