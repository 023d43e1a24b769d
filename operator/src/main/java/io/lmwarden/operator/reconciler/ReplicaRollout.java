package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lmwarden.common.Durations;
import io.lmwarden.operator.dependent.EffectiveSpec;
import io.lmwarden.operator.dependent.VllmStatefulSetDependent;
import io.lmwarden.operator.model.ModelDeployment;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Carries out the rolling update of the replica pods that {@link RolloutPlanner} decides: deletes the outdated
 * pods it names (each drains in its preStop, then the StatefulSet, whose update strategy is {@code OnDelete},
 * recreates it from the current template) and records an Event for each.
 *
 * <p>The informer cache can lag behind a deletion; the uids of pods this operator deleted are remembered until
 * the cache shows them gone, so a stale view never deletes a pod twice, and a delete carries the pod's
 * resourceVersion as a precondition, so a pod that changed since it was read (or was recreated under the same
 * name) is left alone until the next look.
 */
final class ReplicaRollout {
    private static final Logger LOG = Logger.getLogger(ReplicaRollout.class.getName());

    private final RolloutPlanner planner = new RolloutPlanner();
    /** uid of every pod this operator deleted whose removal the cache has not shown yet, to its ModelDeployment. */
    private final Map<String, String> deleted = new ConcurrentHashMap<>();

    RolloutStep advance(KubernetesClient client, ModelDeployment md, EffectiveSpec spec, Optional<StatefulSet> statefulSet,
                        Collection<Pod> pods, boolean wasRolling, Instant now) {
        Set<String> present = pods.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
        deleted.entrySet().removeIf(e -> e.getValue().equals(key(md)) && !present.contains(e.getKey()));
        if (statefulSet.isEmpty() || !operatorReplacesPods(statefulSet.get())) {
            return RolloutStep.unknown();
        }
        StatefulSet sts = statefulSet.get();
        List<ReplicaPod> view = pods.stream()
                .map(p -> ReplicaPod.of(p, sts.getMetadata().getName(), deleted.containsKey(p.getMetadata().getUid())))
                .flatMap(Optional::stream).toList();
        RolloutStep step = planner.plan(sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas(),
                observedRevision(sts), view, spec.rollout(), wasRolling, now);
        for (ReplicaPod pod : step.replace()) {
            replace(client, md, spec, pod, step, now);
        }
        return step;
    }

    private void replace(KubernetesClient client, ModelDeployment md, EffectiveSpec spec, ReplicaPod pod, RolloutStep step, Instant now) {
        try {
            client.pods().inNamespace(md.getMetadata().getNamespace()).withName(pod.name())
                    .lockResourceVersion(pod.resourceVersion()).delete();
        } catch (KubernetesClientException e) {
            LOG.info(() -> "rollout of " + key(md) + ": pod " + pod.name() + " not deleted now (" + e.getCode() + " " + e.getMessage()
                    + "); looking again");
            return;
        }
        deleted.put(pod.uid(), key(md));
        String message = "replacing " + pod.name() + " with the current pod template: it takes no new sessions and drains (up to "
                + Durations.format(spec.rollout().drainTimeout()) + "), then starts again; " + step.updated() + " of " + step.desired()
                + " replicas updated";
        LOG.info(() -> "rollout of " + key(md) + ": " + message);
        ModelDeploymentEvents.record(client, md, new ModelDeploymentEvents.Note(ModelDeploymentEvents.NORMAL, "RollingUpdate", message), now);
    }

    /** Only with OnDelete: a StatefulSet still on RollingUpdate (written by an older operator) replaces pods itself. */
    private static boolean operatorReplacesPods(StatefulSet sts) {
        return sts.getSpec() != null && sts.getSpec().getUpdateStrategy() != null
                && VllmStatefulSetDependent.UPDATE_STRATEGY.equals(sts.getSpec().getUpdateStrategy().getType());
    }

    /** The update revision once the StatefulSet controller has seen the current template; empty before. */
    private static Optional<String> observedRevision(StatefulSet sts) {
        var status = sts.getStatus();
        Long generation = sts.getMetadata().getGeneration();
        if (status == null || status.getUpdateRevision() == null || status.getUpdateRevision().isEmpty()) {
            return Optional.empty();
        }
        if (generation != null && (status.getObservedGeneration() == null || status.getObservedGeneration() < generation)) {
            return Optional.empty();
        }
        return Optional.of(status.getUpdateRevision());
    }

    private static String key(ModelDeployment md) {
        return md.getMetadata().getNamespace() + "/" + md.getMetadata().getName();
    }
}
