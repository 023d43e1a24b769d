package io.lmwarden.sim.dp;

/**
 * The API server's choice of an engine for a request without a rank header, as vLLM's
 * {@code DPLBAsyncMPClient} makes it: from {@code lb_engines} (the coordinator's last published
 * {@code [waiting, running, kv_usage]} per engine, or zeros before any), which the balancer bumps
 * locally ({@code waiting += 1}, one API server) for every request it sends, until the next publication
 * replaces them. Thread-safe; called on the server's event loop and by the coordinator's timer.
 */
final class InternalBalancer {
    private final BalancerEra era;
    private final double[] waiting;
    private final double[] running;
    private final double[] kvUsage;
    private int startIndex;

    InternalBalancer(BalancerEra era, int engines) {
        this.era = era;
        this.waiting = new double[engines];
        this.running = new double[engines];
        this.kvUsage = new double[engines];
    }

    BalancerEra era() {
        return era;
    }

    /** The coordinator's publication: replaces the counts, and with them every local bump since the last one. */
    synchronized void publish(int[] newWaiting, int[] newRunning, double[] newKvUsage) {
        for (int i = 0; i < waiting.length; i++) {
            waiting[i] = newWaiting[i];
            running[i] = newRunning[i];
            kvUsage[i] = newKvUsage[i];
        }
    }

    /** No engine has a request waiting or running in the last publication, nor a local bump since. */
    synchronized boolean seesEveryEngineIdle() {
        for (int i = 0; i < waiting.length; i++) {
            if (waiting[i] != 0 || running[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** The engine for the next request; {@code inflight[i]} = this server's unfinished requests on engine i. */
    synchronized int choose(int[] inflight) {
        int n = waiting.length;
        double min = Double.MAX_VALUE;
        int chosen = 0;
        for (int k = 0; k < n; k++) {
            int i = (startIndex + k) % n;
            double score = switch (era) {
                case LEGACY, BLIND -> waiting[i] * 4 + running[i];
                case CURRENT -> Math.max(inflight[i], waiting[i] + running[i])
                        + (waiting[i] > 0 ? waiting[i] * 6.0 * Math.max(0.0, kvUsage[i] - 0.5) : 0);
            };
            if (score < min) {
                min = score;
                chosen = i;
            }
        }
        waiting[chosen] += 1;
        if (era == BalancerEra.CURRENT) {
            startIndex = (startIndex + 1) % n;
        }
        return chosen;
    }
}
