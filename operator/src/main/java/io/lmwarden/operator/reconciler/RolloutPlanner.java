package io.lmwarden.operator.reconciler;

import io.lmwarden.operator.dependent.EffectiveSpec;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Decides which outdated replica pods to replace now. A pure function of what the StatefulSet and its pods
 * say, so tests drive every case.
 *
 * <ul>
 *   <li>A pod is outdated when its revision is not the StatefulSet's update revision; pods at or above the
 *       desired count are being scaled away by the StatefulSet and are left to it.</li>
 *   <li>Unavailable: missing, not Ready, or going. Outdated pods that are not Ready serve nobody and are
 *       replaced at once; Ready ones only while fewer than {@code maxUnavailable} are unavailable, highest
 *       ordinal first (the order the StatefulSet controller itself would use). So the next one goes only
 *       when the one replaced before it is Ready again.</li>
 *   <li>A pod of the current template that crash-loops, cannot pull or configure its container, failed, or
 *       is not Ready {@code readyTimeout} after it started pauses the rollout: no more deletions, so the pool
 *       keeps every replica still on the old template.</li>
 * </ul>
 */
final class RolloutPlanner {
    /** While a rollout runs, look again at least this often even if no pod changes. */
    static final Duration HEARTBEAT = Duration.ofSeconds(30);

    /**
     * @param replicas       the StatefulSet's desired pods
     * @param updateRevision the revision of its current template; empty until its controller observed the template
     * @param wasRolling     the previous status said a rolling update was under way (it stays so until the last
     *                       replaced pod is Ready)
     */
    RolloutStep plan(int replicas, Optional<String> updateRevision, List<ReplicaPod> allPods, EffectiveSpec.Rollout settings,
                     boolean wasRolling, Instant now) {
        if (updateRevision.isEmpty()) {
            return RolloutStep.unknown();
        }
        String revision = updateRevision.get();
        List<ReplicaPod> pods = allPods.stream().filter(p -> p.ordinal() < replicas).toList();
        List<ReplicaPod> outdated = pods.stream().filter(p -> !p.revision().equals(revision)).toList();
        List<ReplicaPod> current = pods.stream().filter(p -> p.revision().equals(revision) && !p.terminating()).toList();
        List<ReplicaPod> starting = current.stream().filter(p -> !p.ready()).toList();
        int updated = current.size() - starting.size();
        Optional<RolloutStep.Failure> failing = starting.stream().map(p -> failure(p, settings.readyTimeout(), now))
                .flatMap(Optional::stream).findFirst();
        Optional<Duration> deadline = starting.stream().filter(p -> p.notReadySince() != null && p.trouble().isEmpty())
                .map(p -> Duration.between(now, p.notReadySince().plus(settings.readyTimeout())).plusSeconds(1))
                .filter(d -> !d.isNegative()).min(Comparator.naturalOrder());
        List<ReplicaPod> draining = outdated.stream().filter(ReplicaPod::terminating).toList();
        boolean rolling = !outdated.isEmpty() || (wasRolling && updated < replicas);

        if (!rolling) {
            return new RolloutStep(RolloutStep.Phase.IDLE, replicas, updated, List.of(), List.of(), starting, failing, deadline);
        }
        if (failing.isPresent()) {
            return new RolloutStep(RolloutStep.Phase.PAUSED, replicas, updated, List.of(), draining, starting, failing, deadline);
        }
        long present = pods.stream().map(ReplicaPod::ordinal).distinct().count();
        long unavailable = (replicas - present) + pods.stream().filter(p -> p.terminating() || !p.ready()).count();
        List<ReplicaPod> idle = outdated.stream().filter(p -> !p.terminating() && !p.ready()).sorted(highestFirst()).toList();
        List<ReplicaPod> serving = outdated.stream().filter(p -> !p.terminating() && p.ready()).sorted(highestFirst())
                .limit(Math.max(0, settings.maxUnavailable() - unavailable)).toList();
        List<ReplicaPod> replace = Stream.concat(idle.stream(), serving.stream()).toList();
        Duration recheck = deadline.filter(d -> d.compareTo(HEARTBEAT) < 0).orElse(HEARTBEAT);
        return new RolloutStep(RolloutStep.Phase.ROLLING, replicas, updated, replace, draining, starting, Optional.empty(), Optional.of(recheck));
    }

    private static Optional<RolloutStep.Failure> failure(ReplicaPod pod, Duration readyTimeout, Instant now) {
        if (pod.trouble().isPresent()) {
            return Optional.of(new RolloutStep.Failure(pod.name(), pod.trouble().get()));
        }
        if (pod.notReadySince() != null && !now.isBefore(pod.notReadySince().plus(readyTimeout))) {
            return Optional.of(new RolloutStep.Failure(pod.name(), "not Ready " + io.lmwarden.common.Durations.format(readyTimeout)
                    + " after it started" + pod.unscheduled().map(u -> ", " + u).orElse("")));
        }
        return Optional.empty();
    }

    private static Comparator<ReplicaPod> highestFirst() {
        return Comparator.comparingInt(ReplicaPod::ordinal).reversed();
    }
}
