package io.lmwarden.router.placement;

import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** 8 agent sessions × 6 steps through the router to 4 simulated replicas, over real HTTP. */
class AffinityRoutingTest {

    private static final double TIME_SCALE = 20;

    @ParameterizedTest
    // TEMPLATE sessions share their first step, so they move once after it: KeylessTemplateTest covers them.
    @EnumSource(value = AgentSession.Identity.class, names = "TEMPLATE", mode = EnumSource.Mode.EXCLUDE)
    void keepsEverySessionOnOneReplicaAndBeatsLeastLoadedOnPrefixHits(AgentSession.Identity identity) throws Exception {
        AgentWorkload workload = new AgentWorkload(8, 6, identity);
        AgentWorkload.Result affinity;
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(4, SimProfile.defaultProfile(), TIME_SCALE), c -> c.with(PlacementSettings.POLICY, "affinity"))) {
            affinity = workload.run(router, "aff-" + identity);
        }
        AgentWorkload.Result leastLoaded;
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(4, SimProfile.defaultProfile(), TIME_SCALE), c -> c.with(PlacementSettings.POLICY, "least-loaded"))) {
            leastLoaded = workload.run(router, "ll-" + identity);
        }

        assertThat(affinity.statuses()).hasSize(48).containsOnly(200);
        assertThat(leastLoaded.statuses()).hasSize(48).containsOnly(200);
        Set<String> used = new HashSet<>();
        for (Map.Entry<String, List<String>> e : affinity.replicasBySession().entrySet()) {
            assertThat(new HashSet<>(e.getValue())).as("replicas of session %s", e.getKey()).hasSize(1);
            used.addAll(e.getValue());
            List<String> decisions = affinity.decisionsBySession().get(e.getKey());
            assertThat(decisions.get(0)).isEqualTo("NEW");
            assertThat(decisions.subList(1, decisions.size())).containsOnly("STICKY");
        }
        assertThat(used).as("sessions spread over the pool").hasSize(4);

        System.out.printf("identity=%s prefix hit rate: affinity %.3f, least-loaded %.3f%n",
                identity, affinity.hitRate(), leastLoaded.hitRate());
        assertThat(affinity.hitRate()).isGreaterThan(0.75);
        assertThat(affinity.hitRate()).isGreaterThan(leastLoaded.hitRate() + 0.10);
    }
}
