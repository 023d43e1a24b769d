package io.lmwarden.sim.lora;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * vLLM's {@code vllm:lora_requests_info} gauge ({@code PrometheusStatLogger} in {@code vllm/v1/metrics/loggers.py}):
 * labels {@code max_lora}, {@code waiting_lora_adapters}, {@code running_lora_adapters} (comma-joined adapter names, no
 * {@code model_name} or {@code engine}), set to the current wall-clock time at each record. A Prometheus gauge keeps every
 * label combination it was ever set with, so the series accumulate and the current one is the one with the newest
 * time; the simulator keeps the 64 most recently set (vLLM keeps all). Thread-safe: every engine of a server records.
 */
public final class LoraRequestsInfo {
    static final int MAX_SERIES = 64;

    /** One series: its label values and the time (seconds since the epoch) it was last set. */
    public record Series(String maxLora, String waiting, String running, double epochSeconds) {
    }

    private final String maxLora;
    /** By label values, least recently set first. */
    private final LinkedHashMap<String, Series> series = new LinkedHashMap<>(16, 0.75f, true);

    public LoraRequestsInfo(int maxLoras) {
        this.maxLora = Integer.toString(maxLoras);
    }

    /**
     * One record of an engine's scheduler stats. vLLM's {@code LoRARequestStates.update_scheduler_stats} fills both
     * dicts with every adapter that has a request waiting or running (counts 0 included), so both labels list the same
     * names, in the order their first live request arrived.
     */
    public synchronized void record(List<String> adaptersWithRequests, double epochSeconds) {
        String names = String.join(",", adaptersWithRequests);
        String key = maxLora + '\u0000' + names + '\u0000' + names;
        series.put(key, new Series(maxLora, names, names, epochSeconds));
        Iterator<Map.Entry<String, Series>> oldest = series.entrySet().iterator();
        while (series.size() > MAX_SERIES && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }

    /** The series, in the order they were first set. */
    public synchronized List<Series> series() {
        List<Series> out = new ArrayList<>(series.values());
        out.sort(java.util.Comparator.comparingDouble(Series::epochSeconds));
        return out;
    }
}
