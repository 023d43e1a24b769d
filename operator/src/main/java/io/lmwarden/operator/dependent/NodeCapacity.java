package io.lmwarden.operator.dependent;

import java.util.Map;

/**
 * What {@code kvOffload.sizeGiB: auto} reads of one node: its labels (for the pod's nodeSelector), its allocatable
 * memory and GPUs, and whether new pods may land on it.
 */
public record NodeCapacity(String name, Map<String, String> labels, long allocatableMemoryMiB, int allocatableGpus, boolean unschedulable) {
    public NodeCapacity {
        labels = Map.copyOf(labels);
    }

    /** Whether a replica pod with this nodeSelector and this many GPUs can be scheduled here at all. */
    boolean canHold(Map<String, String> nodeSelector, int gpusPerPod) {
        return !unschedulable && allocatableGpus >= gpusPerPod
                && nodeSelector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }
}
