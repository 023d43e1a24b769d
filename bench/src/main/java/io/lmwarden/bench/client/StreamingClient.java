package io.lmwarden.bench.client;

import io.lmwarden.bench.workload.WorkloadSpec;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import java.time.Duration;

/**
 * Sends streaming requests and reads their SSE replies on one Vert.x event loop: cheap enough for
 * dozens of concurrent streams beside the router and simulator on two cores.
 */
public final class StreamingClient implements AutoCloseable {

    public static final String REPLICA_HEADER = "X-LMW-Replica";
    public static final String DECISION_HEADER = "X-LMW-Decision";
    private static final int MAX_ERROR_BODY = 4096;

    private final HttpClientAgent http;

    public StreamingClient(Vertx vertx, int maxConnections) {
        this.http = vertx.createHttpClient(
                new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true).setConnectTimeout(10_000),
                new PoolOptions().setHttp1MaxSize(maxConnections).setMaxWaitQueueSize(-1));
    }

    /**
     * Posts one streaming request. The future always succeeds: failures are carried in
     * {@link StepOutcome#error()} so that the caller counts them instead of losing them.
     *
     * @param sessionId sent in the API's session header; null sends none
     */
    public Future<StepOutcome> send(String baseUrl, ApiFlavour api, String sessionId, byte[] body, Duration idleTimeout) {
        Promise<StepOutcome> done = Promise.promise();
        long sent = System.nanoTime();
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setAbsoluteURI(baseUrl + api.path())
                .setIdleTimeout(Math.max(1000, idleTimeout.toMillis()))
                .putHeader("content-type", "application/json")
                .putHeader("accept", "text/event-stream");
        if (sessionId != null) {
            options.putHeader(api.sessionHeader(), sessionId);
        }
        if (api == ApiFlavour.ANTHROPIC) {
            options.putHeader("anthropic-version", "2023-06-01");
        }
        http.request(options)
                .compose(req -> req.send(Buffer.buffer(body)))
                .onSuccess(resp -> read(resp, api, sent, done))
                .onFailure(err -> done.tryComplete(failure(sent, null, null, "request failed: " + err)));
        return done.future();
    }

    private static void read(HttpClientResponse resp, ApiFlavour api, long sent, Promise<StepOutcome> done) {
        String replica = resp.getHeader(REPLICA_HEADER);
        String decision = resp.getHeader(DECISION_HEADER);
        if (resp.statusCode() / 100 != 2) {
            Buffer errorBody = Buffer.buffer();
            resp.handler(chunk -> {
                if (errorBody.length() < MAX_ERROR_BODY) {
                    errorBody.appendBuffer(chunk);
                }
            });
            resp.exceptionHandler(err -> done.tryComplete(failure(sent, replica, decision,
                    "HTTP " + resp.statusCode() + ", body cut: " + err)));
            resp.endHandler(v -> done.tryComplete(failure(sent, replica, decision,
                    "HTTP " + resp.statusCode() + ": " + abbreviate(errorBody.toString()))));
            return;
        }
        StreamInterpreter interpreter = api.newInterpreter();
        long[] firstToken = {0};
        SseLineSplitter lines = new SseLineSplitter(data -> {
            if (interpreter.onData(data) && firstToken[0] == 0) {
                firstToken[0] = System.nanoTime();
            }
        });
        resp.handler(lines::feed);
        resp.exceptionHandler(err -> done.tryComplete(outcome(sent, firstToken[0], replica, decision, interpreter,
                "stream broken: " + err)));
        resp.endHandler(v -> {
            lines.finish();
            String error = interpreter.error();
            if (error == null && !interpreter.completed()) {
                error = "stream ended without its completion marker";
            }
            if (error == null && firstToken[0] == 0) {
                error = "stream carried no tokens";
            }
            done.tryComplete(outcome(sent, firstToken[0], replica, decision, interpreter, error));
        });
    }

    private static StepOutcome outcome(long sent, long firstToken, String replica, String decision,
                                       StreamInterpreter interpreter, String error) {
        String reply = interpreter.replyText();
        int output = interpreter.outputTokens() >= 0
                ? interpreter.outputTokens()
                : (reply.length() + WorkloadSpec.CHARS_PER_TOKEN - 1) / WorkloadSpec.CHARS_PER_TOKEN;
        return new StepOutcome(replica, decision, sent, firstToken, System.nanoTime(), output,
                interpreter.promptTokens(), interpreter.cachedTokens(), reply, error);
    }

    private static StepOutcome failure(long sent, String replica, String decision, String error) {
        return new StepOutcome(replica, decision, sent, 0, System.nanoTime(), 0, -1, -1, "", error);
    }

    private static String abbreviate(String s) {
        String oneLine = s.replace('\n', ' ').trim();
        return oneLine.length() > 300 ? oneLine.substring(0, 300) + "…" : oneLine;
    }

    @Override
    public void close() {
        http.close();
    }
}
