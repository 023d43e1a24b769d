package io.lmwarden.router.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The operator's dashboard: plain HTML, JS and CSS from the classpath folder {@code webroot},
 * served at {@code /} (the page) and {@code /ui/*} (its files). It reads the JSON admin API
 * ({@code /api/replicas}, {@code /api/stats}, {@code /api/sessions}) from the browser; nothing
 * here touches {@code /api}, {@code /v1}, {@code /metrics} or the health endpoints.
 */
public final class WebUi {

    /** Where the page's files live, both on the classpath and under the URL prefix. */
    static final String CLASSPATH_ROOT = "webroot";
    static final String URL_PREFIX = "/ui";

    private WebUi() {
    }

    public static void mount(Router router) {
        // No caching: a router upgrade must never leave an operator looking at an old page
        // against a newer API; the files are a few kilobytes.
        StaticHandler files = StaticHandler.create(CLASSPATH_ROOT)
                .setCachingEnabled(false)
                .setDirectoryListing(false)
                .setIncludeHidden(false)
                .setIndexPage("index.html");
        router.route(URL_PREFIX + "/*").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> {
            rc.response().putHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
            rc.next();
        }).handler(files);
        router.route("/").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> rc.reroute(URL_PREFIX + "/index.html"));
        router.get(URL_PREFIX).handler(rc -> rc.redirect(URL_PREFIX + "/"));
    }
}
