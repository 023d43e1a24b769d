package io.lmwarden.sim.http;

import io.lmwarden.sim.OutputLength;
import io.lmwarden.sim.SimProfile;

import java.util.List;

/** What one replica's HTTP surface needs to know about itself. {@code servedModelNames} come first-name-first. */
public record ReplicaConfig(int index, List<String> servedModelNames, SimProfile profile, long seed,
                            OutputLength outputLength) {
    public ReplicaConfig {
        servedModelNames = List.copyOf(servedModelNames);
    }

    /** The first served name, as vLLM labels its metrics and reports it when a request names none. */
    public String model() {
        return servedModelNames.get(0);
    }
}
