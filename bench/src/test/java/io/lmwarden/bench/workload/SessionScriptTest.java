package io.lmwarden.bench.workload;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class SessionScriptTest {

    private final WorkloadSpec spec = WorkloadSpec.reference();

    @Test
    void textHasTheRequestedTokenSize() {
        assertThat(PseudoText.of(1, "x", 3500)).hasSize(3500 * WorkloadSpec.CHARS_PER_TOKEN);
    }

    @Test
    void sameSeedSameSessionsAcrossRunsButDistinctSessionIds() {
        SessionScript a = new SessionScript(spec, 7, 1);
        SessionScript b = new SessionScript(spec, 7, 2);
        assertThat(a.userText(1)).isEqualTo(b.userText(1));
        assertThat(a.userText(3)).isEqualTo(b.userText(3));
        assertThat(a.thinkTimeAfter(2)).isEqualTo(b.thinkTimeAfter(2));
        assertThat(a.sessionId()).isNotEqualTo(b.sessionId());
    }

    @Test
    void firstMessagesAreUniqueFromTheirFirstBlock() {
        String s0 = new SessionScript(spec, 0, 1).userText(1);
        String s1 = new SessionScript(spec, 1, 1).userText(1);
        assertThat(s0.substring(0, 64)).isNotEqualTo(s1.substring(0, 64));
    }

    @Test
    void thinkTimeAveragesItsMeanWithinTheJitterBand() {
        double sum = 0;
        int n = 2000;
        for (int i = 0; i < n; i++) {
            Duration d = new SessionScript(spec, i, 1).thinkTimeAfter(1);
            assertThat(d.toMillis()).isBetween(500L, 3500L);
            sum += d.toMillis();
        }
        assertThat(sum / n).isBetween(1900.0, 2100.0);
    }

    @Test
    void zeroThinkTimeIsAllowed() {
        WorkloadSpec none = new WorkloadSpec(10, 10, 1, 10, 8, Duration.ZERO, 0.5, 1);
        assertThat(new SessionScript(none, 0, 1).thinkTimeAfter(1)).isZero();
    }

    @Test
    void aSteadyStartWaitsTheRestOfAPauseFoundInProgress() {
        SessionClass agents = WorkloadFile.read(java.nio.file.Path.of("claude-code-tools")).classes().get(0);
        Distribution pause = agents.shape().pause();
        // the mean residual of a renewal process: E[P^2] / (2 E[P])
        int n = 20_000;
        double m1 = 0;
        double m2 = 0;
        for (int i = 0; i < n; i++) {
            double p = pause.quantile((i + 0.5) / n);
            m1 += p / n;
            m2 += p * p / n;
        }
        double expected = m2 / (2 * m1);
        double sum = 0;
        int joined = 0;
        for (int j = 0; j < 3000; j++) {
            SessionScript s = SessionScript.steady(agents, j, 1);
            if (s.joinStep() > 1) {
                sum += s.joinDelay().toNanos();
                joined++;
            }
        }
        assertThat(sum / joined).isBetween(expected * 0.85, expected * 1.15);
        assertThat(new SessionScript(agents, 0, 1).joinDelay()).isZero();
    }
}
