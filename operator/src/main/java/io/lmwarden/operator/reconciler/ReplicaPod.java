package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One replica pod as the rolling update sees it.
 *
 * @param ordinal       the StatefulSet ordinal: {@code <statefulset>-<ordinal>}
 * @param revision      the StatefulSet revision the pod was made from (label {@value #REVISION_LABEL})
 * @param terminating   deleted (draining) or deleted by this operator and not yet seen so
 * @param notReadySince when the pod last turned not Ready (or was created); null when it is Ready
 * @param trouble       why a pod that will not become Ready by waiting is stuck (crash loop, image, config), if it is
 * @param unscheduled   why the scheduler has not placed it, if it has not
 */
public record ReplicaPod(String name, String uid, String resourceVersion, int ordinal, String revision, boolean ready,
                  boolean terminating, Instant notReadySince, Optional<String> trouble, Optional<String> unscheduled) {

    /** Set by the StatefulSet controller on every pod it makes. */
    static final String REVISION_LABEL = "controller-revision-hash";
    /** Waiting reasons that a pod does not leave by itself (the kubelet backs off and retries the same thing). */
    private static final Set<String> STUCK = Set.of("CrashLoopBackOff", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName",
            "CreateContainerConfigError", "CreateContainerError", "RunContainerError");

    /** The pod, or empty if it is no ordinal of this StatefulSet. */
    static Optional<ReplicaPod> of(Pod pod, String statefulSet, boolean deletedByOperator) {
        String name = pod.getMetadata().getName();
        String prefix = statefulSet + "-";
        if (name == null || !name.startsWith(prefix) || !name.substring(prefix.length()).matches("[0-9]{1,9}")) {
            return Optional.empty();
        }
        String revision = pod.getMetadata().getLabels() == null ? "" : pod.getMetadata().getLabels().getOrDefault(REVISION_LABEL, "");
        Optional<PodCondition> readyCondition = condition(pod, "Ready");
        boolean ready = readyCondition.map(c -> "True".equals(c.getStatus())).orElse(false);
        Instant notReadySince = ready ? null : readyCondition.map(PodCondition::getLastTransitionTime).filter(t -> t != null && !t.isEmpty())
                .or(() -> Optional.ofNullable(pod.getMetadata().getCreationTimestamp())).map(Instant::parse).orElse(null);
        return Optional.of(new ReplicaPod(name, pod.getMetadata().getUid(), pod.getMetadata().getResourceVersion(),
                Integer.parseInt(name.substring(prefix.length())), revision, ready,
                deletedByOperator || pod.getMetadata().getDeletionTimestamp() != null, notReadySince, ready ? Optional.empty() : trouble(pod),
                ready ? Optional.empty() : unscheduled(pod)));
    }

    private static Optional<String> trouble(Pod pod) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        if ("Failed".equals(pod.getStatus().getPhase())) {
            return Optional.of("pod Failed" + suffix(pod.getStatus().getReason(), pod.getStatus().getMessage()));
        }
        List<ContainerStatus> containers = new ArrayList<>();
        Stream.of(pod.getStatus().getInitContainerStatuses(), pod.getStatus().getContainerStatuses())
                .filter(list -> list != null).forEach(containers::addAll);
        return containers.stream()
                .filter(c -> c.getState() != null && c.getState().getWaiting() != null && STUCK.contains(c.getState().getWaiting().getReason()))
                .findFirst()
                .map(c -> "container " + c.getName() + " " + c.getState().getWaiting().getReason()
                        + (c.getRestartCount() != null && c.getRestartCount() > 0 ? " after " + c.getRestartCount() + " restarts" : "")
                        + suffix(null, c.getState().getWaiting().getMessage()));
    }

    private static Optional<String> unscheduled(Pod pod) {
        return condition(pod, "PodScheduled").filter(c -> "False".equals(c.getStatus()))
                .map(c -> "not scheduled" + suffix(c.getReason(), c.getMessage()));
    }

    private static Optional<PodCondition> condition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    private static String suffix(String reason, String message) {
        String text = Stream.of(reason, message).filter(s -> s != null && !s.isBlank()).reduce((a, b) -> a + ": " + b).orElse("");
        return text.isEmpty() ? "" : " (" + (text.length() > 300 ? text.substring(0, 300) + "…" : text) + ")";
    }
}
