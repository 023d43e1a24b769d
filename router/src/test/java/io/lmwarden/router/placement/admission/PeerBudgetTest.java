package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.lmwarden.router.placement.admission.ResidencyTableTest.ws;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One replica's budget across routers: what the peers' residents add to this router's, each session and
 * each shared prefix once (to within one checkpoint stride, never more than they share).
 */
class PeerBudgetTest {

    private static final int STRIDE = PeerResident.CHECKPOINT_STRIDE;

    @Test
    void aSessionResidentHereAndOnAPeerCountsOnceHere() {
        ResidencyTable here = new ResidencyTable();
        here.stepStarted("a", "r0", ws(0, 0, 600, 16), 0);
        List<PeerResident> peers = List.of(PeerResident.of("a", "r0", ws(0, 0, 500, 16)), PeerResident.of("b", "r0", ws(1, 0, 300, 16)));
        // a is this router's (its larger, current working set is in the ledger); b is the peer's alone.
        assertThat(here.peerBlocks("r0", peers)).isEqualTo(316);
        assertThat(here.usedBlocks("r0") + here.peerBlocks("r0", peers)).isEqualTo(616 + 316);
    }

    @Test
    void aSessionThatGrewAtAPeerSinceItsLastStepHereCountsWithItsGrowth() {
        ResidencyTable here = new ResidencyTable();
        here.stepStarted("a", "r0", ws(0, 0, 500, 16), 0);
        // Two steps later, through another router, a's prompt is 120 blocks longer.
        List<PeerResident> peers = List.of(PeerResident.of("a", "r0", ws(0, 0, 620, 16)));
        assertThat(here.usedBlocks("r0") + here.peerBlocks("r0", peers)).isEqualTo(636);
        // The copy of a session that moved counts where it is now, not twice.
        assertThat(here.peerBlocks("r1", List.of(PeerResident.of("a", "r1", ws(0, 0, 620, 16))))).isZero();
    }

    @Test
    void aPrefixSharedWithResidentsHereOrWithAnotherPeerSessionCountsOnce() {
        ResidencyTable here = new ResidencyTable();
        // A system prompt of 2 strides shared by every session, then each session's own blocks.
        int shared = 2 * STRIDE;
        here.stepStarted("x", "r0", ws(0, shared, 400, 16), 0);
        List<PeerResident> peers = List.of(PeerResident.of("p", "r0", ws(1, shared, 400, 16)), PeerResident.of("q", "r0", ws(2, shared, 400, 16)));
        assertThat(here.peerBlocks("r0", peers)).isEqualTo(2 * 416);
        // Without anything resident here, the prefix counts once among the peers' sessions.
        assertThat(new ResidencyTable().peerBlocks("r0", peers)).isEqualTo(shared + 2 * 416);
        // A newcomer with the same system prompt adds only its own blocks, whether the prefix is held here or by a peer.
        assertThat(here.extraBlocks("r0", ws(3, shared, 400, 16), peers)).isEqualTo(416);
        assertThat(new ResidencyTable().extraBlocks("r0", ws(3, shared, 400, 16), peers)).isEqualTo(416);
        // A peer's sessions on another replica share nothing with it.
        assertThat(new ResidencyTable().extraBlocks("r1", ws(3, shared, 400, 16), List.of())).isEqualTo(shared + 416);
    }

    @Test
    void aSharedPrefixIsFoundToWithinOneStrideAndNeverOverestimated() {
        int shared = 2 * STRIDE + STRIDE / 2;
        List<PeerResident> peers = List.of(PeerResident.of("p", "r0", ws(1, shared, 400, 16)), PeerResident.of("q", "r0", ws(2, shared, 400, 16)));
        long counted = new ResidencyTable().peerBlocks("r0", peers);
        long exact = shared + 2 * 416;
        assertThat(counted).isBetween(exact, exact + STRIDE - 1);
    }

    @Test
    void aPeerWithoutSessionDetailCountsItsWholeShare() {
        ResidencyTable here = new ResidencyTable();
        here.stepStarted("x", "r0", ws(0, 100, 400, 16), 0);
        assertThat(here.peerBlocks("r0", List.of(PeerResident.opaque("r0", 700)))).isEqualTo(700);
    }
}
