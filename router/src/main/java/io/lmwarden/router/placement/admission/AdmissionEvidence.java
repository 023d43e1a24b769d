package io.lmwarden.router.placement.admission;

import java.util.List;

/**
 * One router's evidence for engagement, as it tells its peers in its load report, and the rule by which every router
 * combines its own with its peers' the same way, so that the cluster takes one decision: the own-prefix miss rate
 * and its samples ({@link ThrashSignal}), when an engine was last seen full with requests waiting and when engaged
 * admission last found no room (epoch nanoseconds, 0 for never), the pool's pause estimate ({@link ReturnTimes}: the
 * weight and mean of ln(pause)), and the longest break-even it computed.
 */
public record AdmissionEvidence(int samples, double missRate, long evidenceSteps, long missedSteps, long lastKvFullEpochNanos,
                                long lastNoRoomEpochNanos, double pauseWeight, double lnPauseMean, long breakEvenNanos) {

    /**
     * A router's miss rate weighs as many steps as it has samples, up to the steps its moving average spans: a router
     * that saw two steps of evidence does not outvote one that saw hundreds, and one that saw thousands does not
     * drown the others' recent misses.
     */
    static final int SAMPLES_WEIGHED = (int) Math.round(1 / ThrashSignal.ALPHA);

    /** Samples of evidence across the cluster. */
    static int samples(int own, List<AdmissionEvidence> peers) {
        int n = own;
        for (AdmissionEvidence p : peers) {
            n += p.samples;
        }
        return n;
    }

    /** The cluster's miss rate: each router's, weighed by its samples up to {@link #SAMPLES_WEIGHED}. */
    static double missRate(int ownSamples, double ownRate, List<AdmissionEvidence> peers) {
        if (peers.isEmpty()) {
            return ownRate;
        }
        double w = Math.min(ownSamples, SAMPLES_WEIGHED);
        double sum = w * ownRate;
        double weights = w;
        for (AdmissionEvidence p : peers) {
            double pw = Math.min(p.samples, SAMPLES_WEIGHED);
            sum += pw * p.missRate;
            weights += pw;
        }
        return weights <= 0 ? ownRate : sum / weights;
    }

    /** The latest of the routers' times (local nanoseconds; {@code own} is local already, 0 in a report is never). */
    static long latest(long own, List<AdmissionEvidence> peers, boolean kvFull, EpochClock epoch) {
        long latest = own;
        for (AdmissionEvidence p : peers) {
            long t = kvFull ? p.lastKvFullEpochNanos : p.lastNoRoomEpochNanos;
            if (t != 0) {
                latest = Math.max(latest, epoch.toLocal(t));
            }
        }
        return latest;
    }

    /** The cluster's mean of ln(pause): each router's estimate weighed by the pauses it rests on. */
    static double lnPauseMean(double ownWeight, double ownMean, List<AdmissionEvidence> peers) {
        if (peers.isEmpty()) {
            return ownMean;
        }
        double sum = ownWeight * ownMean;
        double weights = ownWeight;
        for (AdmissionEvidence p : peers) {
            if (p.pauseWeight > 0) {
                sum += p.pauseWeight * p.lnPauseMean;
                weights += p.pauseWeight;
            }
        }
        return weights <= 0 ? ownMean : sum / weights;
    }

    /** The longest break-even any router computed (a router that has not looked at the replicas yet has none). */
    static long breakEven(long own, List<AdmissionEvidence> peers) {
        long longest = own;
        for (AdmissionEvidence p : peers) {
            longest = Math.max(longest, p.breakEvenNanos);
        }
        return longest;
    }

    static long evidenceSteps(long own, List<AdmissionEvidence> peers, boolean missed) {
        long n = own;
        for (AdmissionEvidence p : peers) {
            n += missed ? p.missedSteps : p.evidenceSteps;
        }
        return n;
    }
}
