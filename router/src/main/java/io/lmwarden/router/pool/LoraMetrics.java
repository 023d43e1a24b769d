package io.lmwarden.router.pool;

import java.util.List;

/**
 * What one scrape says about an engine's LoRA adapters: vLLM's {@code vllm:lora_requests_info} gauge
 * ({@code PrometheusStatLogger} in {@code vllm/v1/metrics/loggers.py}). The gauge keeps every label set it was given and
 * sets the newest to the wall-clock time, so the current state is the series with the largest value. vLLM fills both of
 * its adapter labels with every adapter that has a request waiting or running; {@code busy} is that list. No residency
 * (which adapters sit in GPU slots) is published: the router infers it from where it sent adapters' requests.
 *
 * @param maxLoras adapters one batch can run at once ({@code --max-loras}, label {@code max_lora}); 0 when not published
 * @param busy     adapters with a request in the engine at the newest series
 */
public record LoraMetrics(int maxLoras, List<String> busy) {

    public static final LoraMetrics NONE = new LoraMetrics(0, List.of());

    public LoraMetrics {
        busy = List.copyOf(busy);
    }

    /** Whether the engine published the gauge (it does only with {@code --enable-lora}, after its first step). */
    public boolean published() {
        return maxLoras > 0;
    }
}
