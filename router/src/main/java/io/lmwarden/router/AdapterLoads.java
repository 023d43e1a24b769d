package io.lmwarden.router;

import io.lmwarden.router.placement.lora.AdapterLoader;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Sends adapter placement's load requests ({@link AdapterLoader}) on the proxy's client, not the checks': vLLM answers a
 * load once the adapter is read (from a volume, or downloaded from Hugging Face), which may take minutes, and a check's
 * connection held that long would delay the replica's health checks.
 */
record AdapterLoads(HttpClient client) implements AdapterLoader.Sender {

    /** A download from Hugging Face may be slow; silence past this is a failed load, asked again later. */
    static final long LOAD_IDLE_TIMEOUT_MS = TimeUnit.MINUTES.toMillis(10);

    @Override
    public CompletionStage<AdapterLoader.Answer> post(String url, String body) {
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url)
                .putHeader("Content-Type", "application/json").setIdleTimeout(LOAD_IDLE_TIMEOUT_MS);
        return client.request(opts).compose(req -> req.send(body))
                .compose(resp -> resp.body().map(b -> new AdapterLoader.Answer(resp.statusCode(), b.toString())))
                .toCompletionStage();
    }
}
