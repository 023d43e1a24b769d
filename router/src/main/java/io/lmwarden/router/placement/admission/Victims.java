package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which paused residents give up their residency first when a replica's budget is under pressure: the least likely to
 * come back within the break-even (longest expected remaining pause; a session that has likely ended comes first),
 * then the relatively idlest (paused longest against its own usual pause, as MORI ranks), then the most served. A
 * resident likely to return within the break-even holds its KV for less than recomputing it would cost, so it is not a
 * victim under pressure at all; a replica with nothing to run takes residents that have paused half their usual pause,
 * but never one about to return.
 */
final class Victims {

    /** A resident with nothing in flight, since when. */
    record Paused(String session, long idleSinceNanos) {
    }

    /** Under pressure, a resident whose chance of returning within the break-even is below this gives up its residency. */
    static final double PRESSURE_RETURN_CHANCE = 0.5;
    /** Return chances this close count as equal, so that the next criteria decide. */
    private static final double CHANCE_STEP = 0.1;

    private final ReturnTimes returns;
    private final AttainedService service;

    Victims(ReturnTimes returns, AttainedService service) {
        this.returns = returns;
        this.service = service;
    }

    private record Ranked(String session, double chance, double idleness, double served) {
    }

    /** Which paused residents may go. */
    enum Eligible {
        /** Those that cost more to hold than to recompute: pressure within the budget. */
        COSTLY,
        /** Those too, and those paused half their usual pause or longer: the replica has nothing to run. */
        WORK_CONSERVING,
        /** Every paused resident: more residents than the budget holds while the pool thrashes. */
        ALL
    }

    /**
     * The residents that may give up their residency, first victim first.
     *
     * @param breakEvenNanos how long holding a session's KV costs what recomputing it does on this replica
     */
    List<String> order(List<Paused> paused, long nowNanos, long breakEvenNanos, Eligible eligibleOnes) {
        boolean workConserving = eligibleOnes == Eligible.WORK_CONSERVING;
        List<Ranked> eligible = new ArrayList<>(paused.size());
        for (Paused p : paused) {
            long idle = Math.max(0, nowNanos - p.idleSinceNanos());
            double chance = returns.returnChance(p.session(), idle, breakEvenNanos);
            double idleness = idle / Math.max(1, returns.medianPauseNanos(p.session()));
            // Work-conserving, a resident paused half its usual pause goes too, unless it is about to return (likely
            // back within a quarter of the break-even).
            boolean idleEnough = workConserving && idleness >= 0.5
                    && returns.returnChance(p.session(), idle, breakEvenNanos / 4) < PRESSURE_RETURN_CHANCE;
            if (eligibleOnes == Eligible.ALL || chance < PRESSURE_RETURN_CHANCE || idleEnough) {
                eligible.add(new Ranked(p.session(), Math.floor(chance / CHANCE_STEP), idleness, service.at(p.session(), nowNanos)));
            }
        }
        eligible.sort(Comparator.comparingDouble(Ranked::chance)
                .thenComparing(Comparator.comparingDouble(Ranked::idleness).reversed())
                .thenComparing(Comparator.comparingDouble(Ranked::served).reversed()));
        return eligible.stream().map(Ranked::session).toList();
    }
}
