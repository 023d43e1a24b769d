package io.lmwarden.sim.lora;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * vLLM's LoRA settings ({@code --enable-lora}, {@code --lora-modules}, {@code --max-loras}, {@code --max-cpu-loras},
 * {@code --max-lora-rank}, {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING}), validated as {@code LoRAConfig} validates them
 * ({@code vllm/config/lora.py}): {@code max_loras} ≥ 1, {@code max_cpu_loras} ≥ {@code max_loras} (default: equal),
 * {@code max_lora_rank} one of 1, 8, 16, 32, 64, 128, 256, 320, 512.
 *
 * @param diskLoadMs    simulated ms to load an adapter that is not resident in CPU memory (read from disk, parsed)
 * @param activateMs    simulated ms to copy a CPU-resident adapter into a GPU slot
 * Both are for an adapter of rank {@code maxLoraRank}: the simulator takes every adapter to be of the maximum rank, the
 * size vLLM sizes its GPU slots for.
 */
public record LoraOptions(boolean enabled, List<LoraModule> modules, int maxLoras, int maxCpuLoras, int maxLoraRank,
                          boolean runtimeUpdating, double diskLoadMs, double activateMs) {

    /** vLLM's {@code MaxLoRARanks}. */
    public static final Set<Integer> RANKS = Set.of(1, 8, 16, 32, 64, 128, 256, 320, 512);
    /**
     * A rank-16 adapter on every linear layer of a ~4B model is ~65 MB of bf16 weights: read at ~1 GB/s from a local
     * disk and parsed, ~80 ms; copied at ~25 GB/s (PCIe 4.0 x16) to a GPU slot, ~3 ms. Scaled by rank / 16.
     */
    public static final double DISK_LOAD_MS_AT_RANK_16 = 80;
    public static final double ACTIVATE_MS_AT_RANK_16 = 3;

    public static final LoraOptions DISABLED = new LoraOptions(false, List.of(), 1, 1, 16, false, 0, 0);

    public LoraOptions {
        modules = List.copyOf(modules == null ? List.of() : modules);
        if (maxLoras < 1) {
            throw new IllegalArgumentException("max_loras must be at least 1, got " + maxLoras);
        }
        if (maxCpuLoras < maxLoras) {
            throw new IllegalArgumentException("max_cpu_loras (" + maxCpuLoras + ") must be >= max_loras (" + maxLoras + ")");
        }
        if (!RANKS.contains(maxLoraRank)) {
            throw new IllegalArgumentException("max_lora_rank must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512; got "
                    + maxLoraRank);
        }
        if (!enabled && (!modules.isEmpty() || runtimeUpdating)) {
            // vLLM starts, then fails loading the first static adapter: "LoRA is not enabled".
            throw new IllegalArgumentException("--lora-modules and runtime LoRA updating need --enable-lora");
        }
        Set<String> names = new LinkedHashSet<>();
        for (LoraModule m : modules) {
            if (!names.add(m.name())) {
                throw new IllegalArgumentException("The lora adapter '" + m.name() + "' has already been loaded."
                        + " If you want to load the adapter in place, set 'load_inplace' to True.");
            }
        }
        if (diskLoadMs < 0 || activateMs < 0) {
            throw new IllegalArgumentException("LoRA load times must not be negative");
        }
    }

    /**
     * LoRA on, with vLLM's defaults for what is not given: {@code maxCpuLoras} null = {@code maxLoras}; load times for
     * adapters of rank {@code maxLoraRank}.
     */
    public static LoraOptions of(List<LoraModule> modules, int maxLoras, Integer maxCpuLoras, int maxLoraRank,
                                 boolean runtimeUpdating) {
        double scale = maxLoraRank / 16.0;
        return new LoraOptions(true, modules, maxLoras, maxCpuLoras == null ? maxLoras : maxCpuLoras, maxLoraRank,
                runtimeUpdating, DISK_LOAD_MS_AT_RANK_16 * scale, ACTIVATE_MS_AT_RANK_16 * scale);
    }

    public LoraOptions withLoadTimes(double diskMs, double activateMillis) {
        return new LoraOptions(enabled, modules, maxLoras, maxCpuLoras, maxLoraRank, runtimeUpdating, diskMs, activateMillis);
    }
}
