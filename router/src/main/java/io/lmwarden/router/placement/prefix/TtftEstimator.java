package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.PromptShape;

/**
 * The cost model of the home-or-elsewhere decision (WORKLOAD.md, "How to decide between the home
 * replica and a cold one"): {@code T = queue + load from the host tier + prefill of the uncached remainder}.
 * <ul>
 *   <li>Tokens held: {@link HeldTokens}: the engine's own KV events where its view is live and the prompt's keys
 *       are known, else the replica's {@link PrefixIndex}; beyond the GPU's, the tokens its host-memory KV tier's index
 *       holds, which cost their load time (bytes over the tier's learned bandwidth) instead of their prefill: a
 *       host-tier hit is credited below a GPU hit by exactly its transfer time, as llm-d (0.8) and Dynamo (0.75) weigh
 *       theirs.</li>
 *   <li>Prefill rate: learned per replica from observed TTFBs, with the configured prior.</li>
 *   <li>Queue: the uncached tokens the router already sent there that have not produced a first
 *       byte, plus requests the engine reports waiting that are not the router's (another router,
 *       a direct client) at a typical size, plus a wait for a free sequence slot when the engine is full.</li>
 * </ul>
 */
public final class TtftEstimator {

    /** A typical agent step holds its sequence slot for ~256 output tokens at ~25 ms each (engine time). */
    public static final double TYPICAL_DECODE_ENGINE_MS = 256 * 25;
    /** Size assumed for a queued request the router knows nothing about. */
    static final int UNKNOWN_REQUEST_TOKENS = 2048;

    private final HeldTokens heldTokens;
    private final PrefillRates prefillRates;
    private final int maxNumSeqs;
    private final double decodeMsPerRequest;
    private final double timeScale;

    /**
     * @param decodeMsPerRequest typical time a running request holds its slot after its first token,
     *                           in wall ms: what a request waits per sequence ahead when the engine is full
     */
    public TtftEstimator(PrefixIndexes prefixIndexes, PrefillRates prefillRates, int maxNumSeqs, double decodeMsPerRequest) {
        this(HeldTokens.estimatesOnly(prefixIndexes), prefillRates, maxNumSeqs, decodeMsPerRequest, 1);
    }

    /** {@code timeScale}: engines that run K times faster than real time (a simulator) load from their host tier K times faster. */
    public TtftEstimator(PrefixIndexes prefixIndexes, PrefillRates prefillRates, int maxNumSeqs, double decodeMsPerRequest, double timeScale) {
        this(HeldTokens.estimatesOnly(prefixIndexes), prefillRates, maxNumSeqs, decodeMsPerRequest, timeScale);
    }

    public TtftEstimator(HeldTokens heldTokens, PrefillRates prefillRates, int maxNumSeqs, double decodeMsPerRequest, double timeScale) {
        this.timeScale = timeScale;
        this.heldTokens = heldTokens;
        this.prefillRates = prefillRates;
        this.maxNumSeqs = maxNumSeqs;
        this.decodeMsPerRequest = decodeMsPerRequest;
    }

    public TtftEstimate estimate(ReplicaView r, PromptShape shape) {
        int prompt = shape.estimatedTokens();
        HeldTokens.Held h = heldTokens.held(r, shape);
        int held = Math.min(h.tokens(), Math.max(0, prompt - 1));
        // The engine's cap (the last prompt token is always computed) trims the tail, which is the host tier's part.
        int loaded = Math.max(0, held - (h.tokens() - h.hostTokens()));
        double loadMs = loaded == 0 ? 0 : r.metrics().hostTier().loadEngineMillis(loaded) / timeScale;
        long uncached = prompt - held;
        double rate = prefillRates.msPerToken(r.id());
        long queuedTokens = r.pendingPrefillTokens();
        int busy = r.inFlight();
        if (r.metricsFresh()) {
            // Both counts from the moment of the scrape: a stale engine count against a live one of ours
            // would invent or hide queues for a whole scrape interval.
            double othersWaiting = Math.max(0, r.metrics().waiting() - r.pendingAtScrape());
            queuedTokens += (long) (othersWaiting * UNKNOWN_REQUEST_TOKENS);
            busy = (int) Math.max(busy, r.metrics().running() + r.metrics().waiting());
        }
        double queue = queuedTokens * rate;
        if (busy >= maxNumSeqs) {
            // Full: this request waits for one of the running ones to finish.
            queue += (busy - maxNumSeqs + 1) * decodeMsPerRequest / maxNumSeqs;
        }
        return new TtftEstimate(r, held, uncached, queue, uncached * rate, loaded, loadMs, h.source());
    }
}
