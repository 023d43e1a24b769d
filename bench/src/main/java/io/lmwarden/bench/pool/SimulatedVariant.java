package io.lmwarden.bench.pool;

import io.lmwarden.sim.dp.BalancerEra;

/**
 * A variant of a simulated run: the router's policy, and for data-parallel servers ({@code --engines} > 1)
 * the era of vLLM's internal balancer, written {@code policy@era} (e.g. {@code passthrough@legacy}); without
 * {@code @era} the run's {@code --dp-balancer}.
 */
public record SimulatedVariant(String policy, BalancerEra era) {

    public static SimulatedVariant parse(String spec, BalancerEra defaultEra) {
        int at = spec.indexOf('@');
        if (at < 0) {
            return new SimulatedVariant(spec.trim(), defaultEra);
        }
        return new SimulatedVariant(spec.substring(0, at).trim(), BalancerEra.named(spec.substring(at + 1)));
    }
}
