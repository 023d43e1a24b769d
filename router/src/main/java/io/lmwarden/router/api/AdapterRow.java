package io.lmwarden.router.api;

import io.lmwarden.router.placement.lora.AdapterActivity;
import io.lmwarden.router.placement.lora.AdapterLoader;
import io.lmwarden.router.placement.lora.LoraSlots;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.ReplicaView;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The {@code lora} field of a replica's row in {@code /api/replicas}: its LoRA adapters, or null when it serves none and
 * its engine publishes no LoRA gauge. Per adapter: whether {@code /v1/models} lists it, whether the engine has a request
 * of it in flight (the newest {@code vllm:lora_requests_info} series) and the sessions the router saw working on it here
 * lately ({@code AdapterActivity}: what adapter placement counts).
 */
final class AdapterRow {

    private AdapterRow() {
    }

    static Map<String, Object> of(ReplicaView r, ScrapedMetrics e, AdapterActivity.ReplicaAdapters seen, LoraSlots slots,
                                  AdapterLoader.EndpointLoads loads) {
        boolean gauge = e != null && e.lora().published();
        if (r.servedModels().adapters().isEmpty() && !gauge && seen.adapters() == 0 && loads.loaded().isEmpty() && loads.refused() == null) {
            return null;
        }
        List<String> busy = gauge ? e.lora().busy() : List.of();
        TreeSet<String> names = new TreeSet<>(r.servedModels().adapters());
        names.addAll(busy);
        names.addAll(seen.adapterSessions().keySet());
        List<Map<String, Object>> adapters = new ArrayList<>();
        for (String name : names) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("name", name);
            a.put("listed", r.servedModels().adapters().contains(name));
            a.put("busy", busy.contains(name));
            a.put("sessions", seen.adapterSessions().getOrDefault(name, 0));
            adapters.add(a);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("maxLoras", slots.of(r));
        row.put("maxLorasFrom", slots.source(r));
        // Slots the adapters of its recent sessions need; more than maxLoras means its batches take turns.
        row.put("adaptersInUse", seen.adapters());
        row.put("adapters", adapters);
        // What the router loaded here (loadAdapters), and why it will not load here (a 404: runtime loading not allowed).
        row.put("loadedByRouter", loads.loaded());
        row.put("loadRefused", loads.refused());
        return row;
    }
}
