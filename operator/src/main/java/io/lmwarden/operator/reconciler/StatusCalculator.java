package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.lmwarden.operator.dependent.Labels;
import io.lmwarden.operator.dependent.ResourceNames;
import io.lmwarden.operator.model.Defaults;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.ModelDeploymentStatus;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Derives a ModelDeployment's status from the StatefulSet and router Deployment it owns and from where the
 * rolling update of its replica pods stands ({@link RolloutStep}).
 * A pure function of its inputs (the clock is a parameter) so tests can drive every transition.
 *
 * <ul>
 *   <li>Ready: every replica and at least one router pod ready.</li>
 *   <li>Progressing: replica pods are being replaced ({@value #ROLLING_UPDATE}, "replica 2 of 4 updated"; {@value
 *       #ROLLOUT_PAUSED} when a new one fails), a rollout or scale is under way, or replicas are still starting for
 *       the first time.</li>
 *   <li>Degraded: a replica of the current template will not become Ready ({@value #REPLICA_FAILING}), the last
 *       reconciliation failed, or replicas or the router were ready and are not any more.</li>
 * </ul>
 */
public final class StatusCalculator {
    public static final String READY = "Ready";
    public static final String PROGRESSING = "Progressing";
    public static final String DEGRADED = "Degraded";
    public static final String INVALID_SPEC = "InvalidSpec";
    public static final String ROLLING_UPDATE = "RollingUpdate";
    public static final String ROLLOUT_PAUSED = "RolloutPaused";
    public static final String REPLICA_FAILING = "ReplicaFailing";

    /** Whether the last status said replica pods were being replaced (a rollout stays so until its last pod is Ready). */
    static boolean rollingUpdateUnderWay(ModelDeploymentStatus status) {
        return previousCondition(status, PROGRESSING).map(c -> ROLLING_UPDATE.equals(c.getReason()) || ROLLOUT_PAUSED.equals(c.getReason()))
                .orElse(false);
    }

    public ModelDeploymentStatus compute(ModelDeployment md, Optional<StatefulSet> replicas, Optional<Deployment> router,
                                  RolloutStep rollout, Instant now) {
        ModelDeploymentStatus previous = md.getStatus();
        int desired = desiredReplicas(md);
        // A data-parallel server is one pod serving every replica (engine rank): ready means all of them are.
        int enginesPerPod = dataParallelServer(md) ? desired : 1;
        int ready = replicas.map(StatusCalculator::readyReplicas).orElse(0) * enginesPerPod;
        boolean routerReady = router.map(StatusCalculator::readyReplicas).orElse(0) >= 1;
        boolean replacing = rollout.phase() == RolloutStep.Phase.ROLLING;
        boolean paused = rollout.phase() == RolloutStep.Phase.PAUSED;
        boolean rolling = replacing || replicas.map(s -> statefulSetRolling(s, desired / enginesPerPod)).orElse(true)
                || router.map(StatusCalculator::deploymentRolling).orElse(true);
        boolean wasReady = isTrue(previous, READY);

        Condition readyCondition = ready >= desired && routerReady
                ? condition(READY, true, "AllReplicasReady", ready + "/" + desired + " replicas and the router are ready")
                : ready < desired
                ? condition(READY, false, "ReplicasNotReady", ready + "/" + desired + " replicas ready")
                : condition(READY, false, "RouterNotReady", "all " + desired + " replicas ready, no router pod ready yet");

        Condition progressing;
        if (paused) {
            progressing = condition(PROGRESSING, false, ROLLOUT_PAUSED, "rolling update paused at " + rollout.progress()
                    + ": see the Degraded condition");
        } else if (replacing) {
            progressing = condition(PROGRESSING, true, ROLLING_UPDATE, rollout.progress());
        } else if (rolling) {
            progressing = condition(PROGRESSING, true, "RollingOut", "replicas or router are being created, updated or scaled");
        } else if ((ready < desired || !routerReady) && !wasReady) {
            progressing = condition(PROGRESSING, true, "WaitingForPods", "pods are starting (vLLM may be downloading and loading the model)");
        } else {
            progressing = condition(PROGRESSING, false, "RolloutComplete", "spec is applied");
        }

        Condition degraded;
        if (rollout.failing().isPresent()) {
            RolloutStep.Failure failure = rollout.failing().get();
            degraded = condition(DEGRADED, true, REPLICA_FAILING, failure.pod() + " of the current pod template: " + failure.why()
                    + (paused ? "; the rolling update is paused with " + rollout.updated() + " of " + rollout.desired()
                    + " replicas updated and the others serving unchanged: fix or revert the change (spec.image, spec.model, "
                    + "spec.extraArgs, ...)" : ""));
        } else if (wasReady && !rolling && !paused && ready < desired) {
            degraded = condition(DEGRADED, true, "ReplicasUnavailable", ready + "/" + desired + " replicas ready after all were ready");
        } else if (wasReady && !rolling && !paused && !routerReady) {
            degraded = condition(DEGRADED, true, "RouterUnavailable", "no router pod is ready");
        } else {
            degraded = condition(DEGRADED, false, "AsExpected", "");
        }

        ModelDeploymentStatus status = status(md, previous, ready, routerReady, List.of(readyCondition, progressing, degraded), now);
        if (rollout.phase() != RolloutStep.Phase.UNKNOWN) {
            status.setUpdatedReplicas(rollout.updated() * enginesPerPod);
        }
        return status;
    }

    /** Status of a spec that cannot be applied: Degraded with what to fix; the objects stay as they were. */
    public ModelDeploymentStatus invalid(ModelDeployment md, String problem, Instant now) {
        ModelDeploymentStatus previous = md.getStatus();
        Condition degraded = condition(DEGRADED, true, INVALID_SPEC, problem);
        Condition ready = previousCondition(previous, READY)
                .orElseGet(() -> condition(READY, false, INVALID_SPEC, "see the Degraded condition"));
        Condition progressing = condition(PROGRESSING, false, INVALID_SPEC, "the spec is not applied until it is fixed");
        int readyReplicas = previous == null || previous.getReadyReplicas() == null ? 0 : previous.getReadyReplicas();
        boolean routerReady = previous != null && Boolean.TRUE.equals(previous.getRouterReady());
        return status(md, previous, readyReplicas, routerReady, List.of(ready, progressing, degraded), now);
    }

    /** Status after a failed reconciliation: Degraded with the error, everything else as before. */
    public ModelDeploymentStatus failed(ModelDeployment md, Throwable error, Instant now) {
        ModelDeploymentStatus previous = md.getStatus();
        Condition degraded = condition(DEGRADED, true, "ReconcileFailed", rootMessage(error));
        Condition ready = previousCondition(previous, READY)
                .orElseGet(() -> condition(READY, false, "ReconcileFailed", "see the Degraded condition"));
        Condition progressing = previousCondition(previous, PROGRESSING)
                .orElseGet(() -> condition(PROGRESSING, false, "ReconcileFailed", "see the Degraded condition"));
        int readyReplicas = previous == null || previous.getReadyReplicas() == null ? 0 : previous.getReadyReplicas();
        boolean routerReady = previous != null && Boolean.TRUE.equals(previous.getRouterReady());
        return status(md, previous, readyReplicas, routerReady, List.of(ready, progressing, degraded), now);
    }

    private static ModelDeploymentStatus status(ModelDeployment md, ModelDeploymentStatus previous, int ready,
                                                boolean routerReady, List<Condition> conditions, Instant now) {
        Long generation = md.getMetadata().getGeneration();
        ModelDeploymentStatus status = new ModelDeploymentStatus();
        status.setObservedGeneration(generation);
        status.setReadyReplicas(ready);
        status.setUpdatedReplicas(previous == null ? null : previous.getUpdatedReplicas());
        status.setReady(ready + "/" + desiredReplicas(md));
        status.setSelector(Labels.selector(ResourceNames.of(md), Labels.REPLICA_COMPONENT).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(",")));
        status.setRouterReady(routerReady);
        status.setEndpoint(ResourceNames.of(md).endpoint());
        String timestamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
        status.setConditions(conditions.stream().map(c -> {
            c.setObservedGeneration(generation);
            // A condition's transition time moves only when its status flips.
            c.setLastTransitionTime(previousCondition(previous, c.getType())
                    .filter(p -> Objects.equals(p.getStatus(), c.getStatus()) && p.getLastTransitionTime() != null)
                    .map(Condition::getLastTransitionTime)
                    .orElse(timestamp));
            return c;
        }).toList());
        return status;
    }

    static int desiredReplicas(ModelDeployment md) {
        Integer dp = md.getSpec() == null ? null : md.getSpec().getDataParallelSize();
        return dp == null || dp < 1 ? 1 : dp;
    }

    static boolean dataParallelServer(ModelDeployment md) {
        return md.getSpec() != null && Defaults.LAYOUT_DATA_PARALLEL_SERVER.equals(md.getSpec().getReplicaLayout());
    }

    private static boolean statefulSetRolling(StatefulSet sts, int desired) {
        var status = sts.getStatus();
        if (status == null || sts.getSpec() == null) {
            return true;
        }
        return !observed(sts.getMetadata().getGeneration(), status.getObservedGeneration())
                || !Objects.equals(sts.getSpec().getReplicas(), desired)
                || orZero(status.getUpdatedReplicas()) < desired
                || orZero(status.getReplicas()) != desired;
        // Not currentRevision: with the OnDelete strategy the StatefulSet controller never moves it to updateRevision.
    }

    private static boolean deploymentRolling(Deployment deployment) {
        var status = deployment.getStatus();
        if (status == null || deployment.getSpec() == null) {
            return true;
        }
        int replicas = orZero(deployment.getSpec().getReplicas());
        return !observed(deployment.getMetadata().getGeneration(), status.getObservedGeneration())
                || orZero(status.getUpdatedReplicas()) < replicas;
    }

    private static boolean observed(Long generation, Long observedGeneration) {
        return generation == null || (observedGeneration != null && observedGeneration >= generation);
    }

    private static int readyReplicas(StatefulSet sts) {
        return sts.getStatus() == null ? 0 : orZero(sts.getStatus().getReadyReplicas());
    }

    private static int readyReplicas(Deployment deployment) {
        return deployment.getStatus() == null ? 0 : orZero(deployment.getStatus().getReadyReplicas());
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    private static boolean isTrue(ModelDeploymentStatus status, String type) {
        return previousCondition(status, type).map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    private static Optional<Condition> previousCondition(ModelDeploymentStatus status, String type) {
        if (status == null || status.getConditions() == null) {
            return Optional.empty();
        }
        return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst()
                .map(c -> new ConditionBuilder(c).build());
    }

    private static Condition condition(String type, boolean status, String reason, String message) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status ? "True" : "False")
                .withReason(reason)
                .withMessage(message)
                .build();
    }

    private static String rootMessage(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.length() > 1000 ? message.substring(0, 1000) : message;
    }
}
