package io.lmwarden.sim.dp;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which release of vLLM's internal data-parallel balancer ({@code DPLBAsyncMPClient.get_core_engine_for_request})
 * a simulated server models. Checked against vllm-project/vllm {@code vllm/v1/engine/core_client.py} at
 * commit 00080ee13c7a451fce071ccb8d0e94d395acf5a7 (current rule) and PRs #22910, #30739, #48808, #49204.
 */
public enum BalancerEra {
    /** Lowest {@code waiting*4 + running} over the coordinator's counts plus local bumps; ties to the lowest rank. */
    LEGACY("legacy"),
    /**
     * Dense models between #30739 and #49204: the coordinator published no queue counts (#48808), so the
     * balancer scored its own local bumps only, which start at zero and never reset: round-robin in effect.
     */
    BLIND("blind"),
    /**
     * #49204: {@code max(inflight, waiting + running) + waiting*6*max(0, kv_usage - 0.5)} with this API
     * server's exact in-flight count per engine and a rotating scan start (#47420).
     */
    CURRENT("current");

    private final String flag;

    BalancerEra(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }

    public static BalancerEra named(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(e -> e.flag.equals(n)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown data-parallel balancer '" + name
                        + "'; choose legacy, blind or current"));
    }
}
