package io.lmwarden.sim.lora;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * Where one engine's adapters are, as vLLM's worker-side {@code LRUCacheWorkerLoRAManager} keeps them: at most
 * {@code max_cpu_loras} registered in CPU memory and at most {@code max_loras} active in GPU slots, each an LRU (an
 * active adapter is also registered; dropping it from CPU deactivates it). Before a step runs, every adapter of its batch
 * is made resident: one not in CPU is loaded from disk, one not in a GPU slot is copied into one, each costing simulated
 * time that stretches the step (vLLM does this in the model runner, before the forward pass). The batch's own adapters are
 * never evicted to make room for each other (the scheduler keeps a batch at {@code max_loras} adapters at most).
 * Not thread-safe: the engine calls it under its lock.
 */
public final class AdapterResidency {
    private final LoraOptions options;
    /** Least recently used first. */
    private final LinkedHashSet<String> cpu = new LinkedHashSet<>();
    private final LinkedHashSet<String> gpu = new LinkedHashSet<>();
    private long diskLoads;
    private long activations;

    public AdapterResidency(LoraOptions options) {
        this.options = options;
    }

    /** Registers an adapter in CPU memory (vLLM's add_lora: static modules at start, runtime loads); no step time. */
    public void preload(String name) {
        touch(cpu, name, options.maxCpuLoras(), java.util.Set.of());
    }

    /** Drops an unloaded adapter from CPU and GPU (vLLM's remove_lora). */
    public void remove(String name) {
        cpu.remove(name);
        gpu.remove(name);
    }

    /** Makes {@code batch}'s adapters resident; returns the simulated ms that takes. */
    public double prepare(Collection<String> batch) {
        double ms = 0;
        for (String name : batch) {
            if (!cpu.contains(name)) {
                ms += options.diskLoadMs();
                diskLoads++;
            }
            touch(cpu, name, options.maxCpuLoras(), batch);
            if (!gpu.contains(name)) {
                ms += options.activateMs();
                activations++;
            }
            touch(gpu, name, options.maxLoras(), batch);
        }
        return ms;
    }

    /** Moves {@code name} to the most recently used end, evicting least recently used ones beyond {@code capacity}. */
    private void touch(LinkedHashSet<String> set, String name, int capacity, Collection<String> keep) {
        set.remove(name);
        set.add(name);
        Iterator<String> lru = set.iterator();
        while (set.size() > capacity && lru.hasNext()) {
            String victim = lru.next();
            if (!victim.equals(name) && !keep.contains(victim)) {
                lru.remove();
                if (set == cpu) {
                    gpu.remove(victim);
                }
            }
        }
    }

    public boolean inCpu(String name) {
        return cpu.contains(name);
    }

    public boolean inGpu(String name) {
        return gpu.contains(name);
    }

    /** Adapters loaded from disk for a step (not counting preloads). */
    public long diskLoads() {
        return diskLoads;
    }

    /** Adapters copied into a GPU slot for a step. */
    public long activations() {
        return activations;
    }
}
