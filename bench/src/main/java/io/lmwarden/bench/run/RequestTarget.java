package io.lmwarden.bench.run;

import java.util.List;

/**
 * Where and for what the load is sent: the routers (one, or the members of a cluster), the model's name and its
 * context window.
 *
 * @param routerUrls    step k of session n goes to router (n + k) mod their number, so consecutive steps of a session
 *                      always reach different routers and first steps are spread over all of them
 * @param contextWindow the model's {@code max_model_len} in tokens, 0 when unknown
 */
public record RequestTarget(List<String> routerUrls, String model, int contextWindow) {

    public RequestTarget {
        routerUrls = List.copyOf(routerUrls);
        if (routerUrls.isEmpty()) {
            throw new IllegalArgumentException("no router to send steps to");
        }
    }
}
