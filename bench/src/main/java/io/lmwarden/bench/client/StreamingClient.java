package io.lmwarden.bench.client;

import io.lmwarden.bench.client.AgentApis;
import io.lmwarden.common.api.ApiDialect;
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
    public static final String QUEUE_WAIT_HEADER = "X-LMW-Queue-Wait-Ms";
    /** A stream the router's queue kept alive names replica, decision and wait in a comment: {@code : lmw replica=… queue-wait-ms=…}. */
    private static final String ROUTER_COMMENT = "lmw ";
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
    public Future<StepOutcome> send(String baseUrl, ApiDialect api, String sessionId, byte[] body, Duration idleTimeout) {
        return send(baseUrl, api, AgentApis.sessionHeader(api), sessionId, body, idleTimeout);
    }

    /** As above, with the session id in {@code sessionHeader} (null: no session header at all). */
    public Future<StepOutcome> send(String baseUrl, ApiDialect api, String sessionHeader, String sessionId, byte[] body,
                                    Duration idleTimeout) {
        Promise<StepOutcome> done = Promise.promise();
        long sent = System.nanoTime();
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setAbsoluteURI(baseUrl + api.path())
                .setIdleTimeout(Math.max(1000, idleTimeout.toMillis()))
                .putHeader("content-type", "application/json")
                .putHeader("accept", "text/event-stream");
        if (sessionHeader != null && sessionId != null) {
            options.putHeader(sessionHeader, sessionId);
        }
        if (api == ApiDialect.ANTHROPIC_MESSAGES) {
            options.putHeader("anthropic-version", "2023-06-01");
        }
        http.request(options)
                .compose(req -> req.send(Buffer.buffer(body)))
                .onSuccess(resp -> read(resp, api, sent, done))
                .onFailure(err -> done.tryComplete(failure(sent, null, null, "request failed: " + err, false)));
        return done.future();
    }

    private static void read(HttpClientResponse resp, ApiDialect api, long sent, Promise<StepOutcome> done) {
        String[] routed = {resp.getHeader(REPLICA_HEADER), resp.getHeader(DECISION_HEADER)};
        String replica = routed[0];
        String decision = routed[1];
        long[] queueWait = {millisHeader(resp.getHeader(QUEUE_WAIT_HEADER))};
        boolean rejected = resp.statusCode() == 429 || resp.statusCode() == 529;
        if (resp.statusCode() / 100 != 2) {
            Buffer errorBody = Buffer.buffer();
            resp.handler(chunk -> {
                if (errorBody.length() < MAX_ERROR_BODY) {
                    errorBody.appendBuffer(chunk);
                }
            });
            resp.exceptionHandler(err -> done.tryComplete(failure(sent, replica, decision,
                    "HTTP " + resp.statusCode() + ", body cut: " + err, rejected)));
            resp.endHandler(v -> done.tryComplete(failure(sent, replica, decision,
                    "HTTP " + resp.statusCode() + ": " + abbreviate(errorBody.toString()), rejected)));
            return;
        }
        StreamInterpreter interpreter = AgentApis.newInterpreter(api);
        long[] firstToken = {0};
        SseLineSplitter lines = new SseLineSplitter(data -> {
            if (interpreter.onData(data) && firstToken[0] == 0) {
                firstToken[0] = System.nanoTime();
            }
        }, comment -> {
            if (comment.startsWith(ROUTER_COMMENT)) {
                for (String kv : comment.substring(ROUTER_COMMENT.length()).split(" ")) {
                    int eq = kv.indexOf('=');
                    if (eq > 0) {
                        switch (kv.substring(0, eq)) {
                            case "replica" -> routed[0] = kv.substring(eq + 1);
                            case "decision" -> routed[1] = kv.substring(eq + 1);
                            case "queue-wait-ms" -> queueWait[0] = millisHeader(kv.substring(eq + 1));
                            default -> { }
                        }
                    }
                }
            }
        });
        resp.handler(lines::feed);
        resp.exceptionHandler(err -> done.tryComplete(outcome(sent, firstToken[0], routed[0], routed[1], interpreter,
                "stream broken: " + err, queueWait[0])));
        resp.endHandler(v -> {
            lines.finish();
            String error = interpreter.error();
            if (error == null && !interpreter.completed()) {
                error = "stream ended without its completion marker";
            }
            if (error == null && firstToken[0] == 0) {
                error = "stream carried no tokens";
            }
            done.tryComplete(outcome(sent, firstToken[0], routed[0], routed[1], interpreter, error, queueWait[0]));
        });
    }

    private static StepOutcome outcome(long sent, long firstToken, String replica, String decision,
                                       StreamInterpreter interpreter, String error, long queueWaitNanos) {
        String reply = interpreter.replyText();
        int output = interpreter.outputTokens() >= 0
                ? interpreter.outputTokens()
                : (reply.length() + WorkloadSpec.CHARS_PER_TOKEN - 1) / WorkloadSpec.CHARS_PER_TOKEN;
        return new StepOutcome(replica, decision, sent, firstToken, System.nanoTime(), output,
                interpreter.promptTokens(), interpreter.cachedTokens(), reply, error, queueWaitNanos, error != null && interpreter.overloaded());
    }

    private static StepOutcome failure(long sent, String replica, String decision, String error, boolean rejected) {
        return new StepOutcome(replica, decision, sent, 0, System.nanoTime(), 0, -1, -1, "", error, 0, rejected);
    }

    /** Milliseconds as the router writes them, in nanoseconds; 0 when absent or not a number. */
    static long millisHeader(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value.trim())) * 1_000_000L;
        } catch (NumberFormatException e) {
            return 0;
        }
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
