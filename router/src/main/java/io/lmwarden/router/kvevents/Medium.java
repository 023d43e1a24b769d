package io.lmwarden.router.kvevents;

import java.util.Locale;

/**
 * Where the engine holds a block: its GPU KV cache, the host-memory tier of the offloading connector, or a further
 * tier behind it. vLLM sends {@code medium} as a string ({@code "GPU"}, {@code "CPU"}, {@code "STORAGE"}); an event
 * without one is the GPU cache (versions before the offloading connector had only that).
 */
public enum Medium {
    GPU, CPU, STORAGE;

    /** The medium a string names, case-insensitively; {@code null} for one this router does not know. */
    static Medium parse(String name) {
        if (name == null) {
            return GPU;
        }
        return switch (name.toUpperCase(Locale.ROOT)) {
            case "GPU" -> GPU;
            case "CPU" -> CPU;
            case "STORAGE", "DISK" -> STORAGE;
            default -> null;
        };
    }
}
