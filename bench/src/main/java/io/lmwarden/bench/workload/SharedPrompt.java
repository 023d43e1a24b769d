package io.lmwarden.bench.workload;

/** The system prompt every session shares (like an agent's fixed preamble). */
public final class SharedPrompt {

    private SharedPrompt() {
    }

    public static String of(WorkloadSpec spec) {
        return PseudoText.of(spec.seed(), "system", spec.systemTokens());
    }
}
