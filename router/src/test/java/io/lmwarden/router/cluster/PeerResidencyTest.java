package io.lmwarden.router.cluster;

import io.lmwarden.router.placement.admission.PeerResident;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The peers' load reports merged into one view of their residents, and the reports' JSON form. */
class PeerResidencyTest {

    @Test
    void aSessionReportedByTwoPeersCountsOnceWithItsLaterLargerWorkingSet() {
        MemberLoad b = new MemberLoad(Map.of(), Map.of("sim-0", 500L), 0, 3,
                List.of(new PeerResident("m\u0000s1", "sim-0", 500, new long[]{7, 8})));
        MemberLoad c = new MemberLoad(Map.of(), Map.of("sim-0", 1100L), 0, 3,
                List.of(new PeerResident("m\u0000s1", "sim-0", 600, new long[]{7, 8, 9}), new PeerResident("m\u0000s2", "sim-0", 500, new long[]{7})));
        PeerResidency merged = PeerResidency.of(List.of(b, c));
        assertThat(merged.sessions()).containsExactlyInAnyOrder("m\u0000s1", "m\u0000s2");
        assertThat(merged.byReplica().get("sim-0")).extracting(PeerResident::session, PeerResident::blocks)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("m\u0000s1", 600L), org.assertj.core.groups.Tuple.tuple("m\u0000s2", 500L));
    }

    @Test
    void aSessionWithAStepInFlightThroughAnyPeerIsRunningAndTheFlagTravelsInTheReport() {
        MemberLoad b = new MemberLoad(Map.of("sim-0", 1), Map.of("sim-0", 500L), 0, 3,
                List.of(new PeerResident("m\u0000s1", "sim-0", 500, new long[]{7}, true)));
        MemberLoad c = new MemberLoad(Map.of(), Map.of("sim-0", 1100L), 0, 3,
                List.of(new PeerResident("m\u0000s1", "sim-0", 600, new long[]{7, 8}, false), new PeerResident("m\u0000s2", "sim-0", 500, new long[]{7})));
        PeerResidency merged = PeerResidency.of(List.of(MemberLoad.fromJson(b.toJson()), MemberLoad.fromJson(c.toJson())));
        assertThat(merged.running()).containsExactly("m\u0000s1");
        // A report from a router that predates the flag: nothing of it is running.
        MemberLoad old = MemberLoad.fromJson("{\"inFlight\":{},\"residentBlocks\":{\"sim-0\":500},\"pins\":1,\"viewId\":2,"
                + "\"residents\":[{\"session\":\"m\\u0000s3\",\"replica\":\"sim-0\",\"blocks\":500,\"checkpoints\":[7]}]}");
        assertThat(PeerResidency.of(List.of(old)).running()).isEmpty();
        assertThat(PeerResidency.of(List.of(old)).sessions()).containsExactly("m\u0000s3");
    }

    @Test
    void aPeerThatReportsNoSessionsCountsWithItsBlocksPerReplica() {
        MemberLoad old = MemberLoad.fromJson("{\"inFlight\":{\"sim-1\":2},\"residentBlocks\":{\"sim-1\":700},\"pins\":4,\"viewId\":2}");
        PeerResidency merged = PeerResidency.of(List.of(old));
        assertThat(merged.sessions()).isEmpty();
        assertThat(merged.byReplica().get("sim-1")).singleElement()
                .satisfies(p -> assertThat(p.blocks()).isEqualTo(700));
    }

    @Test
    void residentsTravelAsJsonAndComeBackWhole() {
        MemberLoad r = new MemberLoad(Map.of("sim-0", 1), Map.of("sim-0", 640L), 12, 5,
                List.of(new PeerResident("model\u0000key-1", "sim-0", 640, new long[]{-4_611_686_018_427_387_904L, 42})));
        MemberLoad back = MemberLoad.fromJson(r.toJson());
        assertThat(back.pins()).isEqualTo(12);
        assertThat(back.residents()).singleElement().satisfies(p -> {
            assertThat(p.session()).isEqualTo("model\u0000key-1");
            assertThat(p.replica()).isEqualTo("sim-0");
            assertThat(p.blocks()).isEqualTo(640);
            assertThat(p.checkpoints()).containsExactly(-4_611_686_018_427_387_904L, 42);
        });
    }
}
