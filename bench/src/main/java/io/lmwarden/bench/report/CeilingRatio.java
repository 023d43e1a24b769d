package io.lmwarden.bench.report;

import io.lmwarden.bench.pool.VariantSpec;

import java.util.List;

/**
 * A variant's figures as a share of the ceiling's (affinity on KV caches that never evict) at the same stage and
 * repeat: how much of the upper bound the policy reaches.
 */
public final class CeilingRatio {

    private CeilingRatio() {
    }

    /** Whether the run has a ceiling variant to compare with. */
    public static boolean present(List<StageResult> rows) {
        return rows.stream().anyMatch(r -> r.policy().equals(VariantSpec.CEILING));
    }

    /** {@code row}'s output tokens/min ÷ the ceiling's, in the same stage and repeat; NaN without a ceiling. */
    public static double outputTokens(StageResult row, List<StageResult> rows) {
        StageResult ceiling = ceilingOf(row, rows);
        return ceiling == null ? Double.NaN : row.throughput().outputTokensPerMin() / ceiling.throughput().outputTokensPerMin();
    }

    /** {@code row}'s sessions/h ÷ the ceiling's; NaN without a ceiling or when the ceiling completed none. */
    public static double sessionsPerHour(StageResult row, List<StageResult> rows) {
        StageResult ceiling = ceilingOf(row, rows);
        return ceiling == null || ceiling.throughput().sessionsPerHour() == 0 ? Double.NaN
                : row.throughput().sessionsPerHour() / ceiling.throughput().sessionsPerHour();
    }

    private static StageResult ceilingOf(StageResult row, List<StageResult> rows) {
        return rows.stream().filter(r -> r.policy().equals(VariantSpec.CEILING) && r.sessions() == row.sessions()
                && r.repeat() == row.repeat()).findFirst().orElse(null);
    }
}
