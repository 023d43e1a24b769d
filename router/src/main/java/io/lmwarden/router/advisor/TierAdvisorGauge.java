package io.lmwarden.router.advisor;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code lmw_tier_advisor_predicted_cache_share{size}}: the share of prompt tokens the tier advisor predicts a host tier of
 * each candidate size would serve from cache ({@code 0x}, {@code 1x}, {@code 2x}, {@code 5x} the GPU KV cache,
 * {@code current}, {@code recommended}). No series until the advisor has replayed a step.
 */
public final class TierAdvisorGauge {

    static final String NAME = "lmw_tier_advisor_predicted_cache_share";

    private final MultiGauge shares;

    public TierAdvisorGauge(MeterRegistry registry) {
        shares = MultiGauge.builder(NAME)
                .description("Share of prompt tokens the tier advisor predicts a host KV tier of each size per replica would serve "
                        + "from cache (size: multiples of the GPU KV cache, current, recommended), 0..1")
                .register(registry);
    }

    public void update(TierAdvice advice) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (TierAdvice.Size s : advice.predictions()) {
            rows.add(MultiGauge.Row.of(Tags.of("size", s.size()), s.predictedShare()));
        }
        if (advice.recommendation() != null) {
            rows.add(MultiGauge.Row.of(Tags.of("size", "recommended"), advice.recommendation().predictedShare()));
        }
        shares.register(rows, true);
    }
}
