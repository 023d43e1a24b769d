package io.lmwarden.sim;

import io.lmwarden.sim.dp.BalancerEra;

/**
 * How to start a {@link SimCluster}. {@code basePort} 0 means any free ports. {@code engines} > 1 makes every
 * replica a data-parallel server ({@code vllm serve --data-parallel-size N}) whose internal balancer is
 * {@code dpBalancer}'s.
 */
public record SimOptions(String host, int basePort, int replicas, String model,
                         SimProfile profile, double timeScale, long seed, boolean randomOutputLength,
                         int engines, BalancerEra dpBalancer) {

    public static final String DEFAULT_MODEL = "Qwen/Qwen3-4B-Instruct-2507";

    public SimOptions {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1");
        }
        if (basePort < 0 || basePort > 65535) {
            throw new IllegalArgumentException("port must be 0..65535");
        }
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("time scale must be a positive number");
        }
        if (engines < 1) {
            throw new IllegalArgumentException("engines must be at least 1");
        }
        if (model == null || model.isBlank() || host == null || host.isBlank() || profile == null || dpBalancer == null) {
            throw new IllegalArgumentException("host, model and profile are required");
        }
    }

    public static SimOptions defaults() {
        return new SimOptions("127.0.0.1", 0, 1, DEFAULT_MODEL, SimProfile.defaultProfile(), 1.0, 42L, false, 1, BalancerEra.CURRENT);
    }

    public SimOptions withReplicas(int n) {
        return new SimOptions(host, basePort, n, model, profile, timeScale, seed, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withBasePort(int p) {
        return new SimOptions(host, p, replicas, model, profile, timeScale, seed, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withModel(String m) {
        return new SimOptions(host, basePort, replicas, m, profile, timeScale, seed, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withProfile(SimProfile p) {
        return new SimOptions(host, basePort, replicas, model, p, timeScale, seed, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withTimeScale(double k) {
        return new SimOptions(host, basePort, replicas, model, profile, k, seed, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withSeed(long s) {
        return new SimOptions(host, basePort, replicas, model, profile, timeScale, s, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withHost(String h) {
        return new SimOptions(h, basePort, replicas, model, profile, timeScale, seed, randomOutputLength, engines, dpBalancer);
    }

    public SimOptions withRandomOutputLength(boolean b) {
        return new SimOptions(host, basePort, replicas, model, profile, timeScale, seed, b, engines, dpBalancer);
    }

    public SimOptions withEngines(int n) {
        return new SimOptions(host, basePort, replicas, model, profile, timeScale, seed, randomOutputLength, n, dpBalancer);
    }

    public SimOptions withDpBalancer(BalancerEra era) {
        return new SimOptions(host, basePort, replicas, model, profile, timeScale, seed, randomOutputLength, engines, era);
    }
}
