package io.lmwarden.router.placement.lora;

import io.lmwarden.router.pool.ReplicaView;

/**
 * A replica's {@code max_loras}, the adapters one of its batches runs at once: its engine's word
 * ({@code vllm:lora_requests_info}'s {@code max_lora}, published with {@code --enable-lora} after its first step), else the
 * router's {@code maxLoras} setting.
 */
public record LoraSlots(int configured) {

    public int of(ReplicaView r) {
        return published(r) ? r.metrics().lora().maxLoras() : configured;
    }

    /** Where {@link #of} comes from: {@code "metrics"} or {@code "setting"}. */
    public String source(ReplicaView r) {
        return published(r) ? "metrics" : "setting";
    }

    private static boolean published(ReplicaView r) {
        return r.metrics() != null && r.metrics().lora().published();
    }
}
