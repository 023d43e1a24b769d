package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class ResidencyTableTest {

    /** Blocks 0..sharedBlocks-1 equal for every session (a common system prompt), then the session's own. */
    static WorkingSet ws(int session, int sharedBlocks, int ownBlocks, int replyBlocks) {
        long[] h = LongStream.concat(LongStream.range(0, sharedBlocks), LongStream.range(0, ownBlocks).map(i -> (session + 1) * 1_000_000L + i))
                .toArray();
        return new WorkingSet(h, replyBlocks);
    }

    @Test
    void blocksSharedBetweenResidentsOfOneReplicaAreCountedOnce() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("a", "r0", ws(0, 200, 400, 16), 0);
        assertThat(t.usedBlocks("r0")).isEqualTo(616);
        // b shares the 200 system-prompt blocks: it adds only its own 400 and its reply.
        assertThat(t.extraBlocks("r0", ws(1, 200, 400, 16))).isEqualTo(416);
        t.stepStarted("b", "r0", ws(1, 200, 400, 16), 0);
        assertThat(t.usedBlocks("r0")).isEqualTo(200 + 2 * 416);
        // On another replica nothing is shared yet.
        assertThat(t.extraBlocks("r1", ws(1, 200, 400, 16))).isEqualTo(616);
        // When a leaves, the shared blocks stay counted for b.
        t.revoke("a");
        assertThat(t.usedBlocks("r0")).isEqualTo(616);
        t.revoke("b");
        assertThat(t.usedBlocks("r0")).isZero();
    }

    @Test
    void aPausedResidentWhoseStepRunsThroughAnotherRouterIsHandedOverNotPausedHere() {
        // Two routers take a's and b's steps in turn: both ended their last step here, a's next one runs through the peer.
        java.util.Set<String> runningAtPeer = new java.util.HashSet<>(java.util.Set.of("a"));
        PeerResidents peers = new PeerResidents() {
            @Override
            public java.util.List<PeerResident> on(String replicaId) {
                return java.util.List.of();
            }

            @Override
            public boolean holds(String session) {
                return true;
            }

            @Override
            public boolean runsElsewhere(String session) {
                return runningAtPeer.contains(session);
            }
        };
        ResidencyTable t = new ResidencyTable(1.0, 38_400, peers);
        t.stepStarted("a", "r0", ws(0, 10, 100, 16), 0);
        t.stepStarted("b", "r0", ws(1, 10, 100, 16), 0);
        t.stepEnded("a", 1);
        t.stepEnded("b", 2);
        long bothHeld = t.usedBlocks("r0");
        assertThat(t.pausedOn("r0")).as("running through the peer: not paused").extracting(Victims.Paused::session).containsExactly("b");
        assertThat(t.isResident("a")).as("reading who is paused changes nothing").isTrue();
        assertThat(t.handOverRunningElsewhere("r0")).isEqualTo(1);
        assertThat(t.pausedOn("r0")).extracting(Victims.Paused::session).containsExactly("b");
        // a's residency is the peer's now: not here, its blocks off this router's ledger (the peer reports them).
        assertThat(t.isResident("a")).isFalse();
        assertThat(t.usedBlocks("r0")).as("a's own 100 blocks and its 16-block reply").isEqualTo(bothHeld - 116);
        assertThat(t.handedOverToPeers()).isEqualTo(1);
        // a's step came back here: resident here again, and paused here once it ends.
        runningAtPeer.clear();
        t.stepStarted("a", "r0", ws(0, 10, 120, 16), 3);
        t.stepEnded("a", 4);
        assertThat(t.handOverRunningElsewhere("r0")).isZero();
        assertThat(t.pausedOn("r0")).extracting(Victims.Paused::session).containsExactly("b", "a");
        assertThat(t.handedOverToPeers()).isEqualTo(1);
    }

    @Test
    void theResidentsReportSaysWhichHaveAStepInFlight() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("a", "r0", ws(0, 10, 100, 16), 0);
        t.stepStarted("b", "r0", ws(1, 10, 100, 16), 0);
        t.stepEnded("b", 1);
        assertThat(t.residents()).extracting(PeerResident::session, PeerResident::running)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("a", true), org.assertj.core.groups.Tuple.tuple("b", false));
    }

    @Test
    void aGrowingWorkingSetReplacesTheOldOneAndAMoveReturnsTheBlocks() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("a", "r0", ws(0, 10, 100, 16), 0);
        t.stepEnded("a", 1);
        t.stepStarted("a", "r0", ws(0, 10, 130, 16), 2);
        assertThat(t.usedBlocks("r0")).isEqualTo(156);
        t.stepEnded("a", 3);
        t.stepStarted("a", "r1", ws(0, 10, 160, 16), 4);
        assertThat(t.usedBlocks("r0")).isZero();
        assertThat(t.usedBlocks("r1")).isEqualTo(186);
        assertThat(t.homeOf("a")).contains("r1");
    }

    @Test
    void aStepWhosePromptDivergesGivesBackTheOldTailButKeepsWhatAnotherResidentShares() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("a", "r0", ws(0, 50, 100, 16), 0);
        t.stepStarted("b", "r0", ws(1, 50, 20, 16), 0);
        assertThat(t.usedBlocks("r0")).isEqualTo(50 + 100 + 16 + 20 + 16);
        t.stepEnded("a", 1);
        // a's next prompt keeps the 50 shared blocks and 40 of its own, then differs: 30 new blocks, a 32-block reply.
        long[] h = LongStream.concat(LongStream.range(0, 50),
                LongStream.concat(LongStream.range(0, 40).map(i -> 1_000_000L + i), LongStream.range(0, 30).map(i -> 9_000_000L + i)))
                .toArray();
        t.stepStarted("a", "r0", new WorkingSet(h, 32), 2);
        assertThat(t.usedBlocks("r0")).isEqualTo(50 + 40 + 30 + 32 + 20 + 16);
        t.revoke("a");
        // b still holds the shared prefix and its own blocks.
        assertThat(t.usedBlocks("r0")).isEqualTo(50 + 20 + 16);
        assertThat(t.extraBlocks("r0", ws(1, 50, 20, 16))).isEqualTo(16);
    }

    @Test
    void fitsHonoursTheBudgetButAnEmptyReplicaTakesAnySession() {
        ResidencyTable t = new ResidencyTable();
        assertThat(t.fits("r0", ws(0, 0, 5000, 16), 1000)).isTrue();
        t.stepStarted("a", "r0", ws(0, 100, 500, 16), 0);
        assertThat(t.fits("r0", ws(1, 100, 300, 16), 1000)).isTrue();   // 616 + 316 = 932
        assertThat(t.fits("r0", ws(1, 100, 400, 16), 1000)).isFalse();  // 616 + 416 = 1032
    }

    @Test
    void residencyNeverEndsByTimeAlone() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("idle", "r0", ws(1, 0, 10, 1), 0);
        t.stepEnded("idle", 100);
        assertThat(t.isResident("idle")).isTrue();
        assertThat(t.pausedOn("r0")).containsExactly(new Victims.Paused("idle", 100));
    }

    @Test
    void twoRequestsOfOneSessionKeepItBusyUntilBothEnd() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("a", "r0", ws(0, 0, 10, 1), 0);
        t.stepStarted("a", "r0", ws(0, 0, 10, 1), 0);
        assertThat(t.stepEnded("a", 5)).isFalse();
        assertThat(t.stepEnded("a", 6)).isTrue();
        assertThat(t.load("r0").inFlight()).isZero();
    }

    @Test
    void pausedResidentsAreListedOldestPauseFirstAndNeverOnesWithARequestInFlight() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("running", "r0", ws(0, 0, 300, 0), 0);
        t.stepStarted("idleShort", "r0", ws(2, 0, 300, 0), 0);
        t.stepStarted("idleLong", "r0", ws(1, 0, 300, 0), 0);
        t.stepStarted("elsewhere", "r1", ws(3, 0, 300, 0), 0);
        t.stepEnded("idleLong", 10);
        t.stepEnded("idleShort", 20);
        t.stepEnded("elsewhere", 5);
        assertThat(t.pausedOn("r0")).containsExactly(new Victims.Paused("idleLong", 10), new Victims.Paused("idleShort", 20));
        assertThat(t.revoke("idleLong")).isTrue();
        assertThat(t.usedBlocks("r0")).isEqualTo(600);
        assertThat(t.forgetReplica("r0")).isEqualTo(2);
        assertThat(t.isResident("running")).isFalse();
        assertThat(t.isResident("elsewhere")).isTrue();
    }

    @Test
    void aReplicaThatLeavesTakesItsResidentsWithIt() {
        ResidencyTable t = new ResidencyTable();
        t.stepStarted("a", "r0", ws(0, 0, 10, 1), 0);
        t.stepStarted("b", "r1", ws(1, 0, 10, 1), 0);
        t.forgetReplica("r0");
        assertThat(t.isResident("a")).isFalse();
        assertThat(t.isResident("b")).isTrue();
        assertThat(t.loads()).containsOnlyKeys("r1");
    }
}
