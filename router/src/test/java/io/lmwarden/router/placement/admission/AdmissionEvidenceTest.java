package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Every router combines its own evidence and its peers' the same way; alone, its own is the decision's. */
class AdmissionEvidenceTest {

    private static AdmissionEvidence report(int samples, double rate, long noRoomEpoch, double pauseWeight, double lnMean, long breakEven) {
        return new AdmissionEvidence(samples, rate, samples, Math.round(samples * rate), 0, noRoomEpoch, pauseWeight, lnMean, breakEven);
    }

    @Test
    void aloneTheOwnEvidenceStandsExactly() {
        assertThat(AdmissionEvidence.missRate(3, 0.123456789, List.of())).isEqualTo(0.123456789);
        assertThat(AdmissionEvidence.lnPauseMean(17, 19.87654321, List.of())).isEqualTo(19.87654321);
        assertThat(AdmissionEvidence.breakEven(42, List.of())).isEqualTo(42);
        assertThat(AdmissionEvidence.samples(5, List.of())).isEqualTo(5);
    }

    @Test
    void theRoutersEvidenceCombinesTheSameWayOnEach() {
        AdmissionEvidence a = report(4, 0.5, 1_000, 100, 20, 30);
        AdmissionEvidence b = report(40, 0.2, 5_000, 50, 23, 50);
        AdmissionEvidence c = report(0, 0, 0, 2, 25, 0);
        // Seen from each router: its own plus the other two.
        double fromA = AdmissionEvidence.missRate(a.samples(), a.missRate(), List.of(b, c));
        double fromB = AdmissionEvidence.missRate(b.samples(), b.missRate(), List.of(c, a));
        double fromC = AdmissionEvidence.missRate(c.samples(), c.missRate(), List.of(a, b));
        // A router weighs as many samples as its moving average spans (10): (4·0.5 + 10·0.2) / 14.
        assertThat(fromA).isCloseTo(4.0 / 14, within(1e-12));
        assertThat(fromB).isCloseTo(fromA, within(1e-12));
        assertThat(fromC).isCloseTo(fromA, within(1e-12));
        assertThat(AdmissionEvidence.samples(c.samples(), List.of(a, b))).isEqualTo(44);
        double pauseFromA = AdmissionEvidence.lnPauseMean(a.pauseWeight(), a.lnPauseMean(), List.of(b, c));
        assertThat(AdmissionEvidence.lnPauseMean(c.pauseWeight(), c.lnPauseMean(), List.of(a, b))).isCloseTo(pauseFromA, within(1e-12));
        assertThat(pauseFromA).isCloseTo((100 * 20 + 50 * 23 + 2 * 25) / 152.0, within(1e-12));
        assertThat(AdmissionEvidence.breakEven(c.breakEvenNanos(), List.of(a, b))).isEqualTo(50);
        // The latest time anyone found no room, on this router's clock; a peer's "never" (0) is no time.
        EpochClock epoch = new EpochClock(100);
        assertThat(AdmissionEvidence.latest(-7, List.of(a, b, c), false, epoch)).isEqualTo(4_900);
    }
}
