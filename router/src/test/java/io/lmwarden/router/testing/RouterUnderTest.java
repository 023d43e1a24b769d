package io.lmwarden.router.testing;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.RouterTuning;
import io.lmwarden.router.config.RouterConfig;

import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/** A router on a free port in front of a {@link SimPool}, closed together. */
public final class RouterUnderTest implements AutoCloseable {

    private final SimPool sims;
    private final LmWardenRouter router;

    private RouterUnderTest(SimPool sims, LmWardenRouter router) {
        this.sims = sims;
        this.router = router;
    }

    public static RouterUnderTest start(SimPool sims, UnaryOperator<RouterConfig> tweak) {
        return start(sims, tweak, RouterTuning.DEFAULTS);
    }

    /** With internal constants changed ({@link RouterTuning}): a window shortened so that a test need not wait a minute. */
    public static RouterUnderTest start(SimPool sims, UnaryOperator<RouterConfig> tweak, RouterTuning tuning) {
        RouterConfig config = RouterConfig.forReplicas(sims.routerEntries()).with(ServerSettings.HOST, "127.0.0.1")
                .withScrapeInterval(Duration.ofMillis(100));
        RouterConfig tweaked = tweak.apply(config);
        LmWardenRouter router = LmWardenRouter.start(tweaked, tuning);
        waitUntilReady(router, tweaked.server().adminToken().map(t -> Map.of("Authorization", "Bearer " + t)).orElse(Map.of()));
        return new RouterUnderTest(sims, router);
    }

    private static void waitUntilReady(LmWardenRouter router, Map<String, String> adminHeaders) {
        Http http = new Http();
        long deadline = System.nanoTime() + Await.HANG_GUARD.toNanos();
        Http.Reply r = null;
        while (System.nanoTime() < deadline) {
            r = http.get(router.adminUrl() + "/api/replicas", adminHeaders);
            if (r.status() == 200 && r.body().contains("\"metricsFresh\":true") && !r.body().contains("\"metricsFresh\":false")) {
                return;
            }
            sleep(50);
        }
        throw new IllegalStateException("router did not see fresh metrics from every replica within " + Await.HANG_GUARD.toSeconds() + " s; last /api/replicas: "
                + (r == null ? "none" : r.status() + " " + r.body()));
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public String url() {
        return router.url();
    }

    public String adminUrl() {
        return router.adminUrl();
    }

    public SimPool sims() {
        return sims;
    }

    @Override
    public void close() {
        router.close();
        sims.close();
    }
}
