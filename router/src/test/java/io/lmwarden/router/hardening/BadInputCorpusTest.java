package io.lmwarden.router.hardening;

import io.lmwarden.router.config.ServerSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RawHttp;
import io.lmwarden.router.testing.RawHttp.Write;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a hostile or broken client sends, over real HTTP to a router in front of simulated replicas:
 * every case gets the expected status with an error body in the API's own shape (or, for slow
 * clients, a closed connection), and a good request right after it is served.
 */
class BadInputCorpusTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = AgentSession.MODEL;
    /** The connection was closed without a response. */
    private static final int CLOSED = -1;
    /**
     * How long the client reads before it gives up: only a hang guard. Every case ends on the router's side (an answer,
     * or a close at its own timeouts of at most 1.5 s here), so a loaded machine cannot turn a late answer into a failure.
     */
    private static final long ANSWER_GUARD_MS = Await.HANG_GUARD.toMillis();
    private static RouterUnderTest router;
    private static final Http HTTP = new Http();

    /** One corpus entry: what is sent, and what must come back. */
    record Case(String category, String name, Write[] writes, int status, ApiDialect shape, long readTimeoutMs) {
    }

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(2, SimProfile.named("tiny"), 5),
                c -> c.with(ServerSettings.BODY_LIMIT, (long) (256 * 1024))
                        .with(ServerSettings.BODY_TIMEOUT, Duration.ofMillis(800)).with(ServerSettings.CLIENT_IDLE_TIMEOUT, Duration.ofMillis(1500))
                        .with(ServerSettings.HEADER_TIMEOUT, Duration.ofMillis(700))
                        .with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("corpus-token")));
    }

    @AfterAll
    static void stop() {
        router.close();
    }

    @TestFactory
    Stream<DynamicTest> everyCaseIsAnsweredInItsApisShapeAndTheNextGoodRequestIsServed() {
        List<Case> corpus = corpus();
        return corpus.stream().map(c -> DynamicTest.dynamicTest(c.category() + ": " + c.name(), () -> check(c)));
    }

    @Test
    void theCorpusHasAtLeast150CasesInEveryCategory() {
        List<Case> corpus = corpus();
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(150);
        assertThat(corpus.stream().map(Case::category).distinct())
                .contains("json", "types", "size", "headers", "methods", "paths", "raw", "slow", "pinning", "admin", "api");
    }

    private static void check(Case c) throws Exception {
        RawHttp.Reply r = RawHttp.exchange(router.url(), c.writes(), c.readTimeoutMs());
        assertThat(r.status()).as("%s / %s: %s %s", c.category(), c.name(), r.headers(), r.body()).isEqualTo(c.status());
        if (c.status() == CLOSED) {
            assertThat(r.timedOut()).as("closed by the router (its timeout), not ended by the test's read timeout after %d ms", r.millis()).isFalse();
        }
        if (c.status() >= 400) {
            assertApiShape(c, r);
        }
        // On a connection of its own, closed after it: a pooled one left idle past the router's 1.5 s client idle
        // timeout may be closed by the router just as the client reuses it, and a POST is not retried.
        String goodBody = "{\"model\":\"" + MODEL + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"after\"}]}";
        RawHttp.Reply good = RawHttp.exchange(router.url(), ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Connection: close\r\nContent-Length: " + goodBody.length() + "\r\n\r\n" + goodBody).getBytes(StandardCharsets.ISO_8859_1),
                ANSWER_GUARD_MS);
        assertThat(good.status()).as("a good request after %s / %s: %s", c.category(), c.name(), good.body()).isEqualTo(200);
    }

    private static void assertApiShape(Case c, RawHttp.Reply r) throws Exception {
        assertThat(r.header("content-type")).as("content type of %s", c.name()).contains("application/json");
        JsonNode body = JSON.readTree(r.body());
        if (c.shape() != null && c.shape().anthropic()) {
            assertThat(body.path("type").asText()).as("anthropic shape of %s: %s", c.name(), r.body()).isEqualTo("error");
            assertThat(body.path("error").path("type").asText()).isNotEmpty();
            assertThat(body.path("error").path("message").asText()).as("message of %s", c.name()).hasSizeGreaterThan(10);
        } else {
            assertThat(body.path("error").path("message").asText()).as("openai shape of %s: %s", c.name(), r.body()).hasSizeGreaterThan(10);
            assertThat(body.path("error").path("type").asText()).isNotEmpty();
            assertThat(body.path("error").path("code").asInt()).isEqualTo(c.status());
        }
        assertThat(r.body()).as("no stack trace or null message in %s", c.name()).doesNotContain("Exception").doesNotContain("null (line");
    }

    // ---- the corpus ----------------------------------------------------------------------------

    private static final List<ApiDialect> GENERATING = List.of(ApiDialect.OPENAI_CHAT, ApiDialect.ANTHROPIC_MESSAGES,
            ApiDialect.OPENAI_COMPLETIONS, ApiDialect.OPENAI_RESPONSES);

    static List<Case> corpus() {
        List<Case> out = new ArrayList<>();
        for (ApiDialect f : GENERATING) {
            String api = f.name().toLowerCase();
            // JSON syntax
            for (String[] bad : new String[][] {
                    {"truncated object", "{\"model\":\"x\",\"messages\":["},
                    {"array body", "[1,2]"},
                    {"null body", "null"},
                    {"string body", "\"hello\""},
                    {"number body", "123"},
                    {"trailing brace", "{}}"},
                    {"two objects", "{} {}"},
                    {"trailing comma", "{\"model\":\"x\",}"},
                    {"single quotes", "{'model':'x'}"},
                    {"NaN literal", "{\"model\":\"x\",\"temperature\":NaN}"},
                    {"comment", "{/* c */\"model\":\"x\"}"},
                    {"unquoted key", "{model:\"x\"}"}}) {
                out.add(post("json", api + " " + bad[0], f, bad[1], "", 400));
            }
            // types
            for (String[] bad : new String[][] {
                    {"model object", "{\"model\":{\"name\":\"x\"},\"max_tokens\":2}"},
                    {"model number", "{\"model\":7,\"max_tokens\":2}"},
                    {"model array", "{\"model\":[\"x\"],\"max_tokens\":2}"},
                    {"stream string", "{\"model\":\"" + MODEL + "\",\"stream\":\"true\",\"max_tokens\":2}"},
                    {"stream number", "{\"model\":\"" + MODEL + "\",\"stream\":1,\"max_tokens\":2}"},
                    {"max_tokens string", "{\"model\":\"" + MODEL + "\",\"max_tokens\":\"32\"}"},
                    {"max_tokens float", "{\"model\":\"" + MODEL + "\",\"max_tokens\":1.5}"},
                    {"max_tokens negative", "{\"model\":\"" + MODEL + "\",\"max_tokens\":-1}"},
                    {"max_tokens zero", "{\"model\":\"" + MODEL + "\",\"max_tokens\":0}"},
                    {"max_tokens beyond int", "{\"model\":\"" + MODEL + "\",\"max_tokens\":99999999999}"},
                    {"messages string", "{\"model\":\"" + MODEL + "\",\"max_tokens\":2,\"messages\":\"hi\"}"},
                    {"messages of numbers", "{\"model\":\"" + MODEL + "\",\"max_tokens\":2,\"messages\":[1]}"}}) {
                out.add(post("types", api + " " + bad[0], f, bad[1], "", 400));
            }
            // the API's own shape for a routing failure
            out.add(post("api", api + " pinned to an unknown replica", f, good(f), "X-LMW-Replica: nowhere\r\n", 400));
            out.add(post("api", api + " good request", f, good(f), "", 200));
        }
        // size and nesting
        for (ApiDialect f : List.of(ApiDialect.OPENAI_CHAT, ApiDialect.ANTHROPIC_MESSAGES)) {
            String api = f.name().toLowerCase();
            out.add(post("size", api + " nested 2000 deep", f, "{\"model\":\"x\",\"metadata\":" + "[".repeat(2000) + "]".repeat(2000) + "}", "", 400));
            out.add(post("size", api + " 2000-digit number", f, "{\"model\":\"x\",\"temperature\":" + "9".repeat(2000) + "}", "", 400));
            out.add(post("size", api + " 60000-char name", f, "{\"" + "k".repeat(60_000) + "\":1}", "", 400));
            out.add(post("size", api + " body over the limit", f, "{\"model\":\"x\",\"pad\":\"" + "a".repeat(300 * 1024) + "\"}", "", 413));
            out.add(post("size", api + " 600-char model", f, "{\"model\":\"" + "m".repeat(600) + "\",\"max_tokens\":2}", "", 400));
            out.add(post("size", api + " 64 KiB user field", f, withField(f, "\"user\":\"" + "u".repeat(64 * 1024) + "\""), "", 200));
            out.add(post("size", api + " 300-char session header", f, good(f), "X-Session-Id: " + "s".repeat(300) + "\r\n", 200));
        }
        // headers
        ApiDialect chat = ApiDialect.OPENAI_CHAT;
        ApiDialect messages = ApiDialect.ANTHROPIC_MESSAGES;
        out.add(post("headers", "gzip body on chat", chat, good(chat), "Content-Encoding: gzip\r\n", 415));
        out.add(post("headers", "gzip body on messages", messages, good(messages), "Content-Encoding: gzip\r\n", 415));
        out.add(post("headers", "br body", chat, good(chat), "Content-Encoding: br\r\n", 415));
        out.add(post("headers", "deflate body", messages, good(messages), "Content-Encoding: deflate\r\n", 415));
        out.add(post("headers", "identity encoding is fine", chat, good(chat), "Content-Encoding: identity\r\n", 200));
        out.add(post("headers", "rank not a number", chat, good(chat), "X-data-parallel-rank: abc\r\n", 400));
        out.add(post("headers", "rank negative", messages, good(messages), "X-data-parallel-rank: -1\r\n", 400));
        out.add(post("headers", "header of 10 KB", chat, good(chat), "X-Big: " + "b".repeat(10_000) + "\r\n", 431));
        out.add(post("headers", "header of 10 KB on messages", messages, good(messages), "X-Big: " + "b".repeat(10_000) + "\r\n", 431));
        out.add(post("headers", "many headers over 8 KB", chat, good(chat), "X-Many: 0123456789012345678901234567890123456789\r\n".repeat(250), 431));
        out.add(raw("headers", "content-length not a number", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}", 400, chat));
        out.add(post("headers", "unknown headers are passed along", chat, good(chat), "X-Whatever: 1\r\n", 200));
        out.add(post("headers", "Bearer key of another case", chat, good(chat), "Authorization: bEaReR sk-abc\r\n", 200));
        // methods
        for (ApiDialect f : ApiDialect.values()) {
            out.add(raw("methods", "GET " + f.path(), "GET " + f.path() + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405, f));
        }
        for (String m : List.of("PUT", "DELETE", "PATCH", "OPTIONS")) {
            out.add(raw("methods", m + " /v1/messages", m + " /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 405, messages));
        }
        out.add(raw("methods", "POST /v1/models", "POST /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 405, null));
        out.add(raw("methods", "POST /healthz", "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 405, null));
        out.add(raw("methods", "DELETE /api/policy", "DELETE /api/policy HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer corpus-token\r\nConnection: close\r\n\r\n", 405, null));
        for (String p : List.of("/healthz", "/readyz", "/metrics", "/v1/models")) {
            out.add(raw("methods", "HEAD " + p, "HEAD " + p + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200, null));
        }
        out.add(raw("methods", "HEAD /api/replicas", "HEAD /api/replicas HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer corpus-token\r\nConnection: close\r\n\r\n", 200, null));
        // paths
        out.add(raw("paths", "unknown path", "GET /v1/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, null));
        out.add(post("paths", "suffix after an endpoint", chat, "/v1/chat/completions/extra", good(chat), "", 404));
        out.add(post("paths", "upper-case path", chat, "/V1/CHAT/COMPLETIONS", good(chat), "", 404));
        out.add(post("paths", "query string is fine", chat, "/v1/chat/completions?x=1", good(chat), "", 200));
        out.add(post("paths", "absolute-form target", chat, router.url() + "/v1/chat/completions", good(chat), "", 200));
        out.add(post("paths", "absolute-form target, pinned", chat, "http://evil.example/v1/chat/completions", good(chat), "X-LMW-Replica: sim-0\r\n", 200));
        out.add(post("paths", "absolute-form messages", messages, router.url() + "/v1/messages", good(messages), "", 200));
        out.add(raw("paths", "target of 5000 chars", "GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 414, null));
        out.add(raw("paths", "dot segments", "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, null));
        out.add(raw("paths", "encoded NUL", "GET /v1/%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, null));
        // raw bytes
        out.add(raw("raw", "garbage line", "GARBAGE\r\n\r\n", 400, null));
        out.add(new Case("raw", "binary junk", new Write[] {new Write(new byte[] {0, 1, 2, (byte) 0xff, 13, 10, 13, 10}, 0)}, 400, null, ANSWER_GUARD_MS));
        out.add(raw("raw", "HTTP/1.0 is fine", "GET /healthz HTTP/1.0\r\n\r\n", 200, null));
        out.add(raw("raw", "header line without colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400, null));
        out.add(raw("raw", "bad chunk size", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", CLOSED, chat));
        out.add(new Case("raw", "invalid UTF-8 in body", new Write[] {new Write(concatBytes(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 14\r\nConnection: close\r\n\r\n{\"model\":\"",
                new byte[] {(byte) 0xff, (byte) 0xfe}, "\"}"), 0)}, 400, chat, ANSWER_GUARD_MS));
        // slow clients
        out.add(new Case("slow", "headers never finished", new Write[] {Write.of("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n", 0)}, 408, null, ANSWER_GUARD_MS));
        out.add(new Case("slow", "connection that sends nothing", new Write[] {Write.of("", 0)}, CLOSED, null, ANSWER_GUARD_MS));
        out.add(new Case("slow", "half-sent headers, then silence", new Write[] {Write.of("GET /healthz HTTP/1.1\r\nHo", 0)}, 408, null, ANSWER_GUARD_MS));
        out.add(new Case("slow", "body shorter than its Content-Length", new Write[] {Write.of(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")},
                408, chat, ANSWER_GUARD_MS));
        out.add(new Case("slow", "body at one byte per 200 ms", concat(Write.of(
                "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n"),
                slowly("{\"model\":\"x\",\"max_tokens\":2,\"pad\":\"aa\"}", 200)), 408, messages, 6000));
        out.add(new Case("slow", "never-ending chunked upload", concat(Write.of(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
                repeat(Write.of("1\r\na\r\n", 100), 30)), 408, chat, 6000));
        out.add(new Case("slow", "idle keep-alive connection", new Write[] {Write.of(
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0)}, 200, null, ANSWER_GUARD_MS));
        // pinning headers
        out.add(post("pinning", "pin to an unknown replica names the known ones", chat, good(chat), "X-LMW-Replica: sim-9\r\n", 400));
        out.add(post("pinning", "empty pin is no pin", chat, good(chat), "X-LMW-Replica: \r\n", 200));
        out.add(post("pinning", "pin of 2000 chars", messages, good(messages), "X-LMW-Replica: " + "r".repeat(2000) + "\r\n", 400));
        out.add(post("pinning", "valid pin", chat, good(chat), "X-LMW-Replica: sim-1\r\n", 200));
        out.add(post("pinning", "unicode session id", messages, good(messages), "X-Claude-Code-Session-Id: \u00e9t\u00e9\r\n", 200));
        out.add(post("pinning", "session id of spaces", chat, good(chat), "X-Session-Id:    \r\n", 200));
        // admin API (behind the token)
        String token = "Authorization: Bearer corpus-token\r\n";
        out.add(raw("admin", "sessions without the token", "GET /api/sessions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 401, null));
        out.add(raw("admin", "replicas with a wrong token", "GET /api/replicas HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\nConnection: close\r\n\r\n", 401, null));
        out.add(raw("admin", "token without Bearer", "GET /api/replicas HTTP/1.1\r\nHost: x\r\nAuthorization: corpus-token\r\nConnection: close\r\n\r\n", 401, null));
        out.add(raw("admin", "lower-case bearer", "GET /api/policy HTTP/1.1\r\nHost: x\r\nAuthorization: bearer corpus-token\r\nConnection: close\r\n\r\n", 200, null));
        out.add(put("admin", "policy not JSON", "{nope", token, 400));
        out.add(put("admin", "unknown policy", "{\"policy\":\"random\"}", token, 400));
        out.add(put("admin", "policy as an array", "[]", token, 400));
        out.add(put("admin", "bad spill threshold", "{\"policy\":\"affinity\",\"spillThreshold\":\"lots\"}", token, 400));
        out.add(put("admin", "gzip policy body", "{}", token + "Content-Encoding: gzip\r\n", 415));
        out.add(raw("admin", "unknown session", "GET /api/sessions/nobody HTTP/1.1\r\nHost: x\r\n" + token + "Connection: close\r\n\r\n", 404, null));
        out.add(raw("admin", "unknown admin path", "GET /api/nope HTTP/1.1\r\nHost: x\r\n" + token + "Connection: close\r\n\r\n", 404, null));
        // count_tokens is passed through: the engine's own answer in the Anthropic shape
        out.add(post("api", "count_tokens good", ApiDialect.ANTHROPIC_COUNT_TOKENS, good(messages), "", 200));
        out.add(post("api", "count_tokens gzip", ApiDialect.ANTHROPIC_COUNT_TOKENS, good(messages), "Content-Encoding: gzip\r\n", 415));
        return out;
    }

    private static String good(ApiDialect f) {
        return switch (f) {
            case OPENAI_COMPLETIONS -> "{\"model\":\"" + MODEL + "\",\"max_tokens\":2,\"prompt\":\"hello\"}";
            case OPENAI_RESPONSES -> "{\"model\":\"" + MODEL + "\",\"max_output_tokens\":2,\"input\":\"hello\"}";
            default -> "{\"model\":\"" + MODEL + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
        };
    }

    private static String withField(ApiDialect f, String field) {
        String g = good(f);
        return "{" + field + "," + g.substring(1);
    }

    private static Case post(String category, String name, ApiDialect f, String body, String headers, int status) {
        return post(category, name, f, f.path(), body, headers, status);
    }

    private static Case post(String category, String name, ApiDialect f, String target, String body, String headers, int status) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + b.length
                + "\r\nConnection: close\r\n" + headers + "\r\n";
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(head.getBytes(StandardCharsets.UTF_8));
        all.writeBytes(b);
        return new Case(category, name, new Write[] {new Write(all.toByteArray(), 0)}, status, f, 10_000);
    }

    private static Case put(String category, String name, String body, String headers, int status) {
        return new Case(category, name, new Write[] {Write.of("PUT /api/policy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\nConnection: close\r\n" + headers + "\r\n" + body)}, status, null, 5000);
    }

    private static Case raw(String category, String name, String request, int status, ApiDialect shape) {
        return new Case(category, name, new Write[] {Write.of(request)}, status, shape, 5000);
    }

    private static byte[] concatBytes(String head, byte[] middle, String tail) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
        all.writeBytes(middle);
        all.writeBytes(tail.getBytes(StandardCharsets.ISO_8859_1));
        return all.toByteArray();
    }

    private static Write[] slowly(String s, long pauseMs) {
        Write[] out = new Write[s.length()];
        for (int i = 0; i < s.length(); i++) {
            out[i] = Write.of(String.valueOf(s.charAt(i)), pauseMs);
        }
        return out;
    }

    private static Write[] repeat(Write w, int n) {
        Write[] out = new Write[n];
        java.util.Arrays.fill(out, w);
        return out;
    }

    private static Write[] concat(Write first, Write[] rest) {
        Write[] out = new Write[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}
