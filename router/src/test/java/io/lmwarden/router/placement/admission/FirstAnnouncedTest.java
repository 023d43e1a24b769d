package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.pool.ReplicaView;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A step that waited in the admission queue is announced with the decision placement made before the wait: that
 * placement re-pinned the session (its home drains, it spilled, it is new), so placing it again from the queue finds
 * the new home and would call the step STICKY.
 */
class FirstAnnouncedTest {

    private static final ReplicaView A = ReplicaView.builder("sim-0").build();
    private static final ReplicaView B = ReplicaView.builder("sim-1").build();

    @Test
    void aDrainMoveMadeBeforeTheWaitIsStillAnnouncedAsDrain() {
        Placement first = new Placement(B, Decision.DRAIN, "home sim-0 is draining").movedFrom("sim-0");
        Placement now = new Placement(B, Decision.STICKY, "home sim-1");
        Placement announced = FirstChoice.asFirstAnnounced(now, first);
        assertThat(announced.decision()).isEqualTo(Decision.DRAIN);
        assertThat(announced.movedFrom()).isEqualTo("sim-0");
        assertThat(announced.reason()).contains("draining");
        assertThat(announced.replica()).isSameAs(B);
    }

    @Test
    void aStepThatLeftADrainingHomeIsADrainMoveWhereverTheBudgetLetItIn() {
        Placement drainToB = new Placement(B, Decision.DRAIN, "home sim-2 is draining").movedFrom("sim-2");
        Placement spillToA = new Placement(A, Decision.SPILL, "over its KV budget").movedFrom("sim-1");
        Placement announced = FirstChoice.asFirstAnnounced(spillToA, drainToB);
        assertThat(announced.decision()).isEqualTo(Decision.DRAIN);
        assertThat(announced.movedFrom()).isEqualTo("sim-2");
        assertThat(announced.replica()).isSameAs(A);
        assertThat(announced.reason()).contains("draining", "admitted on sim-0", "over its KV budget");
    }

    @Test
    void aNewSessionsFirstStepStaysNew() {
        Placement announced = FirstChoice.asFirstAnnounced(new Placement(B, Decision.STICKY, "home sim-1"),
                new Placement(B, Decision.NEW, "new session"));
        assertThat(announced.decision()).isEqualTo(Decision.NEW);
        assertThat(announced.movedFrom()).isNull();
    }

    @Test
    void elsewhereOrAlreadyMovedAgainTheLaterPlacementStands() {
        Placement newOnB = new Placement(B, Decision.NEW, "new session");
        // Admitted on another replica than the first choice: that placement's own decision holds.
        Placement spillToA = new Placement(A, Decision.SPILL, "over budget").movedFrom("sim-1");
        assertThat(FirstChoice.asFirstAnnounced(spillToA, newOnB)).isSameAs(spillToA);
        // Nothing was decided before the wait.
        Placement sticky = new Placement(B, Decision.STICKY, "home sim-1");
        assertThat(FirstChoice.asFirstAnnounced(sticky, null)).isSameAs(sticky);
        // The first decision was STICKY itself.
        assertThat(FirstChoice.asFirstAnnounced(sticky, new Placement(B, Decision.STICKY, "home"))).isSameAs(sticky);
    }
}
