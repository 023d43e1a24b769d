package io.lmwarden.sim.http;

import io.lmwarden.sim.SimProfile;

/** What one replica's HTTP surface needs to know about itself. */
public record ReplicaConfig(int index, String model, SimProfile profile, long seed, boolean randomOutputLength) {
}
