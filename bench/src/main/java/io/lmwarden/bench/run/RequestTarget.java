package io.lmwarden.bench.run;

import java.util.List;
import java.util.function.IntPredicate;

/**
 * Where and for what the load is sent: the routers (one, or the members of a cluster), the model's name and its
 * context window.
 *
 * @param routerUrls    step k of session n goes to router (n + (k - 1) div stepsPerRouter) mod their number, so a
 *                      session's steps move to the next router every {@code stepsPerRouter} steps (every step with 1)
 *                      and first steps are spread over all of them
 * @param contextWindow the model's {@code max_model_len} in tokens, 0 when unknown
 * @param inRotation    whether router i takes steps now: one being restarted does not, as a Service sends nothing to a
 *                      terminating or not-ready pod; its steps go to the next router in rotation
 * @param stepsPerRouter consecutive steps a session sends to one router before it moves to the next: a client whose
 *                      connection ends every so many steps (1: a new connection, so the next router, for every step)
 */
public record RequestTarget(List<String> routerUrls, String model, int contextWindow, IntPredicate inRotation, int stepsPerRouter) {

    public RequestTarget {
        routerUrls = List.copyOf(routerUrls);
        if (routerUrls.isEmpty()) {
            throw new IllegalArgumentException("no router to send steps to");
        }
        if (stepsPerRouter < 1) {
            throw new IllegalArgumentException("a session sends at least one step to a router, got " + stepsPerRouter);
        }
    }

    public RequestTarget(List<String> routerUrls, String model, int contextWindow, IntPredicate inRotation) {
        this(routerUrls, model, contextWindow, inRotation, 1);
    }

    public RequestTarget(List<String> routerUrls, String model, int contextWindow) {
        this(routerUrls, model, contextWindow, i -> true);
    }

    /**
     * The router of step {@code step} (1-based) of session {@code session}: the client-side round robin's, or when that
     * one is out of rotation the next one in rotation (the round robin's own when none is).
     */
    public int routerFor(int session, int step) {
        int n = routerUrls.size();
        int first = SessionDriver.routerFor(session, step, n, stepsPerRouter);
        for (int k = 0; k < n; k++) {
            int candidate = (first + k) % n;
            if (inRotation.test(candidate)) {
                return candidate;
            }
        }
        return first;
    }
}
