package io.lmwarden.router.placement.admission;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How long a newcomer will wait in the admission queue, and how wrong that was. The forecast is (newcomers ahead + 1)
 * divided by the rate at which newcomers have been admitted from the queue ({@link NewcomerPace}): the expected time
 * for that many admissions when they come at that rate. Steps of sessions in progress are not counted ahead: they go
 * first, but those that will overtake a newcomer have mostly not arrived yet, and what they take from newcomers is
 * already in the newcomers' rate. The forecast is then multiplied by its own recent error ({@link ForecastError}: the
 * median of realised / predicted over the last outcomes, timed-out newcomers counted as censored); until that error is
 * measured, the forecast refuses no one ({@link WaitPrediction#passes}). Every queued
 * newcomer's forecast is kept with it and settled when it leaves: admitted (its wait), timed out (at least the
 * timeout), or withdrawn (its client left, or no replica was left: no outcome). Not thread-safe:
 * {@link AdmissionController} guards it.
 */
final class WaitForecast {

    private final NewcomerPace pace = new NewcomerPace();
    private final ForecastError error = new ForecastError();
    private long predicted;
    private long unpredicted;
    private long admitted;
    private long timedOut;
    private long withdrawn;
    private long pastTimeoutQueued;
    private long pastTimeoutTimedOut;

    /** How many newcomers wait from {@code now} on (after every change of the newcomers' lane). */
    void waiting(int newcomers, long now) {
        pace.waiting(newcomers, now);
    }

    /** The wait of a newcomer arriving now behind {@code newcomersAhead} newcomers. */
    WaitPrediction predict(int newcomersAhead, long now) {
        double rate = pace.ratePerNano(now);
        if (Double.isNaN(rate)) {
            return WaitPrediction.UNKNOWN;
        }
        long raw = Math.max(1, Math.round((newcomersAhead + 1) / rate));
        return new WaitPrediction(raw, Math.max(1, Math.round(raw * error.correction())), error.measured());
    }

    /** A newcomer joined the queue with this forecast ({@code timeoutNanos}: the queue timeout it was held against). */
    void queued(WaitPrediction p, long timeoutNanos) {
        if (!p.known()) {
            unpredicted++;
            return;
        }
        predicted++;
        if (p.passes(timeoutNanos)) {
            pastTimeoutQueued++;
        }
    }

    /** A newcomer left the queue admitted after {@code waitedNanos}; its outcome, if it had a forecast. */
    Optional<ForecastError.Outcome> admitted(WaitPrediction p, long waitedNanos, long now) {
        pace.admitted(now);
        if (!p.known()) {
            return Optional.empty();
        }
        admitted++;
        return Optional.of(settle(new ForecastError.Outcome(p.rawNanos(), p.correctedNanos(), waitedNanos, false)));
    }

    /** A newcomer waited the whole {@code timeoutNanos} and was turned away: its wait is at least that. */
    Optional<ForecastError.Outcome> timedOut(WaitPrediction p, long waitedNanos, long timeoutNanos) {
        if (!p.known()) {
            return Optional.empty();
        }
        timedOut++;
        if (p.passes(timeoutNanos)) {
            pastTimeoutTimedOut++;
        }
        return Optional.of(settle(new ForecastError.Outcome(p.rawNanos(), p.correctedNanos(), waitedNanos, true)));
    }

    /** A newcomer left the queue with no outcome (its client went away, or no replica was left). */
    void withdrawn(WaitPrediction p) {
        if (p.known()) {
            withdrawn++;
        }
    }

    /** The factor the forecast is multiplied by now. */
    double correction() {
        return error.correction();
    }

    private ForecastError.Outcome settle(ForecastError.Outcome o) {
        error.add(o);
        return o;
    }

    /** What {@code /api/replicas} shows under {@code queue.forecast}; waits in seconds on the router's clock. */
    Map<String, Object> report(boolean failFast, long now) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("failFast", failFast);
        double rate = pace.ratePerNano(now);
        m.put("newcomersAdmittedPerMinute", Double.isNaN(rate) ? null : round(rate * 60e9));
        m.put("correction", round(error.correction()));
        m.put("measured", error.measured());
        m.put("predictions", predicted);
        m.put("unpredicted", unpredicted);
        m.put("admitted", admitted);
        m.put("timedOut", timedOut);
        m.put("withdrawn", withdrawn);
        ForecastError.Figures f = error.figures();
        Map<String, Object> recent = new LinkedHashMap<>();
        recent.put("outcomes", f.outcomes());
        recent.put("timedOut", f.censored());
        recent.put("realisedOverPredictedMedian", orNull(f.ratioMedian()));
        recent.put("realisedOverPredictedP90", orNull(f.ratioP90()));
        recent.put("predictedMedianSeconds", orNull(f.predictedMedianNanos() / 1e9));
        recent.put("realisedMedianSeconds", orNull(f.realisedMedianNanos() / 1e9));
        m.put("recent", recent);
        Map<String, Object> past = new LinkedHashMap<>();
        past.put("queued", pastTimeoutQueued);
        past.put("timedOut", pastTimeoutTimedOut);
        m.put("pastTimeout", past);
        return m;
    }

    private static Object orNull(double v) {
        return Double.isNaN(v) ? null : round(v);
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
