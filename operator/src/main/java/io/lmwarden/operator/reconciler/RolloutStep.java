package io.lmwarden.operator.reconciler;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where a rolling update of the replica pods stands, and what to do next.
 *
 * @param phase        see {@link Phase}
 * @param desired      replica pods the StatefulSet wants
 * @param updated      replica pods of the current template that are Ready
 * @param replace      outdated pods to delete now (each drains, then the StatefulSet recreates it from the new template)
 * @param draining     outdated pods already going
 * @param waitingFor   new pods not Ready yet
 * @param failing      a pod of the current template that will not become Ready, with why
 * @param recheckAfter when to look again although no pod changed (a readiness deadline, or the rollout's heartbeat)
 */
public record RolloutStep(Phase phase, int desired, int updated, List<ReplicaPod> replace, List<ReplicaPod> draining,
                   List<ReplicaPod> waitingFor, Optional<Failure> failing, Optional<Duration> recheckAfter) {

    public enum Phase {
        /** Nothing to roll: every pod is of the current template (some may still be starting). */
        IDLE,
        /** Not known yet: no StatefulSet, or its controller has not observed the current template. */
        UNKNOWN,
        /** Outdated pods are being replaced, or the last replaced ones are not Ready yet. */
        ROLLING,
        /** A pod of the current template will not become Ready: no more pods are replaced until the spec changes. */
        PAUSED
    }

    /** A pod of the current template that will not become Ready, and why. */
    public record Failure(String pod, String why) {
    }

    public static RolloutStep unknown() {
        return new RolloutStep(Phase.UNKNOWN, 0, 0, List.of(), List.of(), List.of(), Optional.empty(), Optional.empty());
    }

    /** For the Progressing condition: "replica 2 of 4 updated; replacing qwen3-4b-vllm-1 (draining)". */
    String progress() {
        StringBuilder text = new StringBuilder("replica ").append(updated).append(" of ").append(desired).append(" updated");
        if (!replace.isEmpty() || !draining.isEmpty()) {
            text.append("; replacing ").append(names(draining, replace)).append(" (draining)");
        }
        if (!waitingFor.isEmpty()) {
            text.append("; waiting for ").append(names(waitingFor, List.of())).append(" to become Ready");
        }
        return text.toString();
    }

    private static String names(List<ReplicaPod> first, List<ReplicaPod> second) {
        return java.util.stream.Stream.concat(first.stream(), second.stream()).map(ReplicaPod::name).distinct()
                .collect(Collectors.joining(", "));
    }
}
