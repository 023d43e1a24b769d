package io.lmwarden.bench.pool;

import io.lmwarden.bench.metrics.ReplicaProbe;
import io.lmwarden.bench.metrics.SimulatedEnginesProbe;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;

import java.time.Duration;

/**
 * Simulated replicas and a router in this process. Every variant gets freshly started replicas, so no
 * variant inherits another's warm prefix cache (the bias the published run admits to).
 */
public final class SimulatedTarget implements BenchTarget {

    private final int replicas;
    private final SimProfile profile;
    private final double timeScale;
    private final long seed;
    private final String spillThreshold;
    private final Duration scrapeInterval;

    /**
     * @param scrapeInterval how often the router reads the engines' load, in workload time; it is divided by
     *                       the time scale here so that load information is as stale at every scale
     */
    public SimulatedTarget(int replicas, SimProfile profile, double timeScale, long seed, String spillThreshold,
                           Duration scrapeInterval) {
        this.replicas = replicas;
        this.profile = profile;
        this.timeScale = timeScale;
        this.seed = seed;
        this.spillThreshold = spillThreshold;
        this.scrapeInterval = scrapeInterval;
    }

    /** The router's scrape interval on the wall clock: workload interval / K, at least 5 ms. */
    Duration wallScrapeInterval() {
        return Duration.ofNanos(Math.max(5_000_000L, (long) (scrapeInterval.toNanos() / timeScale)));
    }

    @Override
    public VariantTarget open(String policy) {
        SimCluster cluster = SimCluster.start(SimOptions.defaults()
                .withReplicas(replicas).withProfile(profile).withTimeScale(timeScale).withSeed(seed));
        LmWardenRouter router;
        try {
            // The cost policy's prefill-rate prior is the simulated engine's own, as with --simulate.
            RouterConfig config = RouterConfig.forReplicas(cluster.urls()).withPolicy(policy).withTimeScale(timeScale)
                    .withScrapeInterval(wallScrapeInterval()).withPrefillMsPerToken(profile.prefillMsPerToken());
            if (spillThreshold != null) {
                config = config.withSpillThreshold(SpillThreshold.parse(spillThreshold));
            }
            router = LmWardenRouter.start(config);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        ReplicaProbe probe = new SimulatedEnginesProbe(cluster.replicas());
        return new VariantTarget() {
            @Override
            public String url() {
                return router.url();
            }

            @Override
            public ReplicaProbe probe() {
                return probe;
            }

            @Override
            public void close() {
                router.close();
                cluster.close();
            }
        };
    }

    @Override
    public String describe() {
        return replicas + " simulated replicas (profile " + ProfileOverrides.describe(profile) + "; fresh for every variant) behind an in-process router"
                + " scraping engine load every " + scrapeInterval.toMillis() + " ms of workload time";
    }
}
