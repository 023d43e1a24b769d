package io.lmwarden.operator.dependent;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code kvOffload.sizeGiB: auto}: the host tier per engine from the allocatable memory per GPU of the smallest node the
 * replica pod can be scheduled on, or a stated fallback when no node can be read (docs/host-kv-tier-sizing.md).
 *
 * <p>On each eligible node (the pod's nodeSelector matches, enough allocatable GPUs, schedulable) a pod with g of the
 * node's G GPUs is given g/G of the node's allocatable memory; of that share {@link #HEADROOM} stays free for the node's
 * other pods and the page cache, and vLLM's own memory (the container's request, else {@link KvTierMemory#DEFAULT_BASE})
 * is taken off; the rest, split over the pod's engines and rounded down to whole GiB, is the tier. The smallest over
 * the eligible nodes wins, so a pod fits whichever of them it lands on.
 */
final class AutoTierSize {
    /** Share of a pod's memory left to others: daemon sets, the kubelet's working set beyond system-reserved, page cache. */
    static final double HEADROOM = 0.10;
    /**
     * GPU KV cache assumed per GPU when no node can be read: a 48 GB-class GPU (L40S, A6000) at vLLM's 0.9 utilisation less
     * the weights of a mid-size model. Larger GPUs get less than 2x of their cache, smaller ones more.
     */
    static final int FALLBACK_GPU_KV_GIB_PER_GPU = 24;
    /** The issue-34 replay: a tier of 2x the GPU KV cache served 91.5 % of prompt tokens from cache (ceiling 94.7 %). */
    static final int FALLBACK_MULTIPLE = 2;

    private AutoTierSize() {
    }

    /** The size, and a sentence for the status saying how it was chosen. */
    record Sized(double sizeGiB, String how) {
    }

    static Sized size(int gpusPerPod, int enginesPerPod, long baseMiB, Map<String, String> nodeSelector, boolean simulated,
                      NodeInventory inventory) {
        if (simulated) {
            return fallback(gpusPerPod, enginesPerPod, "simulated replicas run on no GPU node");
        }
        if (inventory.nodes().isEmpty()) {
            return fallback(gpusPerPod, enginesPerPod, inventory.unreadable());
        }
        List<NodeCapacity> eligible = inventory.nodes().get().stream().filter(n -> n.canHold(nodeSelector, gpusPerPod)).toList();
        if (eligible.isEmpty()) {
            return fallback(gpusPerPod, enginesPerPod, "no schedulable node matches the nodeSelector " + nodeSelector + " with "
                    + gpusPerPod + " allocatable nvidia.com/gpu");
        }
        NodeCapacity smallest = eligible.stream().min(Comparator.comparingLong(n -> tierMiBPerEngine(n, gpusPerPod, enginesPerPod, baseMiB)))
                .orElseThrow();
        long perEngineGiB = Math.floorDiv(tierMiBPerEngine(smallest, gpusPerPod, enginesPerPod, baseMiB), 1024);
        String node = smallest.name() + " (" + smallest.allocatableMemoryMiB() / 1024 + " GiB allocatable / " + smallest.allocatableGpus()
                + " GPUs, " + gpusPerPod + " GPU" + (gpusPerPod == 1 ? "" : "s") + " per pod, less " + Math.round(HEADROOM * 100)
                + " % headroom and " + baseMiB / 1024 + " GiB for vLLM itself" + (enginesPerPod > 1 ? ", over " + enginesPerPod + " engines" : "") + ")";
        if (perEngineGiB < 1) {
            throw new IllegalArgumentException("spec.kvOffload.sizeGiB is auto, but node " + node + " leaves less than 1 GiB for a host "
                    + "tier: give the replicas nodes with more memory per GPU, lower the vLLM container's memory request, or set "
                    + "sizeGiB to a number");
        }
        return new Sized(perEngineGiB, "auto: " + perEngineGiB + " GiB per engine from the smallest of " + eligible.size()
                + " eligible node" + (eligible.size() == 1 ? "" : "s") + ", " + node);
    }

    /** MiB of host tier one engine gets on this node (negative when vLLM's own need and the headroom take everything). */
    static long tierMiBPerEngine(NodeCapacity node, int gpusPerPod, int enginesPerPod, long baseMiB) {
        double share = (double) node.allocatableMemoryMiB() * gpusPerPod / node.allocatableGpus();
        long usable = (long) Math.floor(share * (1 - HEADROOM)) - baseMiB;
        return Math.floorDiv(usable, enginesPerPod);
    }

    private static Sized fallback(int gpusPerPod, int enginesPerPod, String why) {
        int gpusPerEngine = gpusPerPod / enginesPerPod;
        int size = FALLBACK_MULTIPLE * FALLBACK_GPU_KV_GIB_PER_GPU * gpusPerEngine;
        return new Sized(size, "auto: " + size + " GiB per engine, the fallback (" + why + "): " + FALLBACK_MULTIPLE + " x an assumed "
                + FALLBACK_GPU_KV_GIB_PER_GPU + " GiB GPU KV cache per GPU x " + gpusPerEngine + " GPU" + (gpusPerEngine == 1 ? "" : "s")
                + "; grant the operator get/list on nodes or set sizeGiB to a number");
    }

}
