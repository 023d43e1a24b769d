package io.lmwarden.bench.pool;

import io.lmwarden.sim.dp.BalancerEra;

/**
 * A variant of a simulated run: the router's policy, for data-parallel servers ({@code --engines} > 1)
 * the era of vLLM's internal balancer, written {@code policy@era} (e.g. {@code passthrough@legacy}), and
 * how many clustered routers stand in front of the replicas, written {@code policy*K} (e.g.
 * {@code default*3}); without {@code @era} the run's {@code --dp-balancer}, without {@code *K} its
 * {@code --routers}.
 */
public record SimulatedVariant(String policy, BalancerEra era, int routers) {

    public SimulatedVariant {
        if (routers < 1) {
            throw new IllegalArgumentException("a variant needs at least one router, got " + routers);
        }
    }

    public static SimulatedVariant parse(String spec, BalancerEra defaultEra) {
        return parse(spec, defaultEra, 1);
    }

    public static SimulatedVariant parse(String spec, BalancerEra defaultEra, int defaultRouters) {
        String rest = spec.trim();
        int routers = defaultRouters;
        int star = rest.lastIndexOf('*');
        if (star >= 0) {
            String count = rest.substring(star + 1).trim();
            if (!count.matches("\\d{1,2}")) {
                throw new IllegalArgumentException("'" + spec + "': after * comes the number of clustered routers (e.g. default*3)");
            }
            routers = Integer.parseInt(count);
            rest = rest.substring(0, star).trim();
        }
        int at = rest.indexOf('@');
        if (at < 0) {
            return new SimulatedVariant(rest, defaultEra, routers);
        }
        return new SimulatedVariant(rest.substring(0, at).trim(), BalancerEra.named(rest.substring(at + 1)), routers);
    }
}
