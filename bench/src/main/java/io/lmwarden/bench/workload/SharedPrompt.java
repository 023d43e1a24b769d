package io.lmwarden.bench.workload;

/** The system prompt of a class (like an agent's fixed preamble); classes with a shared one share its prefix. */
public final class SharedPrompt {

    private SharedPrompt() {
    }

    public static String of(WorkloadSpec spec) {
        return PseudoText.of(spec.seed(), "system", spec.systemTokens());
    }

    public static String of(SessionClass cls) {
        return of(cls, null);
    }

    /** The system prompt of the class's sessions on LoRA adapter {@code adapter} (null: the base model's). */
    public static String of(SessionClass cls, String adapter) {
        return PseudoText.of(cls.shape().seed(), cls.systemLabel(adapter), cls.shape().systemTokens());
    }
}
