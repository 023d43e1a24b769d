package io.lmwarden.sim.engine;

/**
 * The request-level histograms of one engine, observed when vLLM observes them: TTFT and inter-token latency as
 * tokens come out, one iteration-tokens sample per engine step, and the phase times and token counts of a request
 * when it finishes (stop or length; aborted requests count only in {@code request_success_total}). Simulated seconds.
 *
 * <p>Phases as vLLM's {@code FinishedRequestStats}: queue = first scheduled − arrival, prefill = first token − first
 * scheduled, decode = last token − first token, e2e = finish − arrival. Not thread-safe: the engine holds its lock.
 */
final class RequestStats {
    final Histogram ttft = new Histogram(Histogram.TTFT_BUCKETS);
    final Histogram interTokenLatency = new Histogram(Histogram.TOKEN_STEP_LATENCY_BUCKETS);
    final Histogram iterationTokens = new Histogram(Histogram.ITERATION_TOKENS_BUCKETS);
    final Histogram queueTime = new Histogram(Histogram.REQUEST_LATENCY_BUCKETS);
    final Histogram prefillTime = new Histogram(Histogram.REQUEST_LATENCY_BUCKETS);
    final Histogram decodeTime = new Histogram(Histogram.REQUEST_LATENCY_BUCKETS);
    final Histogram e2eLatency = new Histogram(Histogram.REQUEST_LATENCY_BUCKETS);
    final Histogram promptTokens;
    final Histogram generationTokens;

    RequestStats(int maxModelLen) {
        double[] tokenBuckets = Histogram.oneTwoFive(maxModelLen);
        promptTokens = new Histogram(tokenBuckets);
        generationTokens = new Histogram(tokenBuckets);
    }

    private RequestStats(RequestStats o) {
        ttft.copyFrom(o.ttft);
        interTokenLatency.copyFrom(o.interTokenLatency);
        iterationTokens.copyFrom(o.iterationTokens);
        queueTime.copyFrom(o.queueTime);
        prefillTime.copyFrom(o.prefillTime);
        decodeTime.copyFrom(o.decodeTime);
        e2eLatency.copyFrom(o.e2eLatency);
        promptTokens = o.promptTokens.copy();
        generationTokens = o.generationTokens.copy();
    }

    /** A token came out for {@code r} at {@code now}; {@code first} when it is the request's first. */
    void token(SimRequest r, double now, boolean first) {
        if (first) {
            ttft.observe(now - r.arrival);
            r.firstTokenTime = now;
        } else {
            interTokenLatency.observe(now - r.lastTokenTime);
        }
        r.lastTokenTime = now;
    }

    /** One engine step: vLLM's {@code num_prompt_tokens + num_generation_tokens} of its iteration stats. */
    void step(long promptTokensOfFirstTokens, long generatedTokens) {
        iterationTokens.observe(promptTokensOfFirstTokens + generatedTokens);
    }

    void finished(SimRequest r, double now) {
        queueTime.observe(r.firstScheduled - r.arrival);
        prefillTime.observe(r.firstTokenTime - r.firstScheduled);
        decodeTime.observe(r.lastTokenTime - r.firstTokenTime);
        e2eLatency.observe(now - r.arrival);
        promptTokens.observe(r.promptLen);
        generationTokens.observe(r.numOutput);
    }

    RequestStats copy() {
        return new RequestStats(this);
    }
}
