package io.lmwarden.router.session;

import io.lmwarden.common.api.ApiDialect;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequestFactsReaderTest {

    private final SessionKeyResolver keys = new SessionKeyResolver(new ConversationLineages(1000));
    private final RequestFactsReader reader = new RequestFactsReader(keys);

    private RequestFacts read(ApiDialect dialect, String body, Map<String, String> headers) throws MalformedRequestException {
        Map<String, String> lower = new HashMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(), v));
        return reader.read(dialect, body.getBytes(StandardCharsets.UTF_8), name -> lower.get(name.toLowerCase()));
    }

    private static final String ANTHROPIC = """
            {"model":"m","stream":true,"max_tokens":256,
             "metadata":{"user_id":"{\\"device_id\\":\\"d\\",\\"account_uuid\\":\\"a\\",\\"session_id\\":\\"meta-sess\\"}"},
             "system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.3; cc_entrypoint=cli;"},
                       {"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],
             "tools":[{"name":"Bash","input_schema":{"type":"object"}}],
             "messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>date</system-reminder>"},
                                                  {"type":"text","text":"fix the bug"}]}],
             "user":"body-user","prompt_cache_key":"pck"}
            """;

    @Test
    void readsModelStreamAndMaxTokens() throws Exception {
        RequestFacts f = read(ApiDialect.ANTHROPIC_MESSAGES, ANTHROPIC, Map.of());
        assertThat(f.model()).isEqualTo("m");
        assertThat(f.stream()).isTrue();
        assertThat(f.maxTokens()).isEqualTo(256);
        assertThat(f.shape().estimatedTokens()).isPositive();
        assertThat(f.shape().segments()).extracting(PromptSegment::name).containsExactly("system", "tools", "message 1 (user)");
    }

    @Test
    void sessionKeySourcesInOrder() throws Exception {
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, ANTHROPIC, Map.of("X-Claude-Code-Session-Id", "cc", "session-id", "codex"))
                .sessionKey()).isEqualTo(new SessionKey("cc", SessionKeySource.CLAUDE_CODE_HEADER));
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, ANTHROPIC, Map.of("session_id", "codex")).sessionKey())
                .isEqualTo(new SessionKey("meta-sess", SessionKeySource.METADATA_USER_ID));
        String noMeta = ANTHROPIC.replaceAll("\"metadata\":\\{.*?\\}\"\\},", "");
        assertThat(noMeta).doesNotContain("metadata");
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, noMeta, Map.of("session_id", "codex", "X-Session-Id", "x")).sessionKey())
                .isEqualTo(new SessionKey("codex", SessionKeySource.CODEX_HEADER));
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, noMeta, Map.of("X-Session-Id", "x", "X-Session-Affinity", "y")).sessionKey())
                .isEqualTo(new SessionKey("x", SessionKeySource.SESSION_ID_HEADER));
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, noMeta, Map.of("X-Session-Affinity", "y")).sessionKey())
                .isEqualTo(new SessionKey("y", SessionKeySource.SESSION_AFFINITY_HEADER));
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, noMeta, Map.of()).sessionKey())
                .isEqualTo(new SessionKey("pck", SessionKeySource.PROMPT_CACHE_KEY));
        String noPck = noMeta.replace(",\"prompt_cache_key\":\"pck\"", ",\"conversation\":{\"id\":\"conv_1\"}");
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, noPck, Map.of()).sessionKey())
                .isEqualTo(new SessionKey("conv_1", SessionKeySource.CONVERSATION));
        String onlyUser = noMeta.replace(",\"prompt_cache_key\":\"pck\"", "");
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, onlyUser, Map.of()).sessionKey())
                .isEqualTo(new SessionKey("body-user", SessionKeySource.USER));
        String none = onlyUser.replaceAll(",\\s*\"user\":\"body-user\"", "");
        assertThat(none).doesNotContain("body-user");
        assertThat(read(ApiDialect.ANTHROPIC_MESSAGES, none, Map.of()).sessionKey().source()).isEqualTo(SessionKeySource.LINEAGE);
    }

    @Test
    void legacyUserIdFormCarriesTheSession() {
        assertThat(keys.sessionFromUserId("user_abc123_account_0a1b_session_5f8e2c1a-1111-2222-3333-444455556666"))
                .isEqualTo("5f8e2c1a-1111-2222-3333-444455556666");
        assertThat(keys.sessionFromUserId("just-a-user")).isNull();
        assertThat(keys.sessionFromUserId("{\"device_id\":\"d\"}")).isNull();
    }

    @Test
    void lineageIgnoresTheBillingHeaderAndFollowsTheConversationItReSends() throws Exception {
        String step1 = """
                {"model":"m","system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=1;"},{"type":"text","text":"SYS"}],
                 "messages":[{"role":"user","content":"first turn"}]}""";
        String step2 = """
                {"model":"m","system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2;"},{"type":"text","text":"SYS"}],
                 "messages":[{"role":"user","content":"first turn"},{"role":"assistant","content":"ok"},{"role":"user","content":"more"}]}""";
        String other = step1.replace("first turn", "another first turn");
        SessionKey k1 = read(ApiDialect.ANTHROPIC_MESSAGES, step1, Map.of()).sessionKey();
        SessionKey k2 = read(ApiDialect.ANTHROPIC_MESSAGES, step2, Map.of()).sessionKey();
        SessionKey k3 = read(ApiDialect.ANTHROPIC_MESSAGES, other, Map.of()).sessionKey();
        assertThat(k1).isEqualTo(k2);
        assertThat(k1).isNotEqualTo(k3);
        // The billing header is not part of the prompt shape either: the shapes share the system prompt.
        RequestFacts f1 = read(ApiDialect.ANTHROPIC_MESSAGES, step1, Map.of());
        RequestFacts f2 = read(ApiDialect.ANTHROPIC_MESSAGES, step2, Map.of());
        assertThat(f2.shape().sharedBlocks(f1.shape())).isEqualTo(f1.shape().blocks());
    }

    @Test
    void openAiChatAndResponsesShapes() throws Exception {
        String chat = """
                {"model":"gpt","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],
                 "tools":[{"type":"function","function":{"name":"f"}}],"stream":false}""";
        RequestFacts f = read(ApiDialect.OPENAI_CHAT, chat, Map.of());
        assertThat(f.shape().segments()).extracting(PromptSegment::name).containsExactly("tools", "system", "message 2 (user)");
        String responses = """
                {"model":"gpt","instructions":"be brief","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],
                 "prompt_cache_key":"abc"}""";
        RequestFacts r = read(ApiDialect.OPENAI_RESPONSES, responses, Map.of());
        assertThat(r.sessionKey()).isEqualTo(new SessionKey("abc", SessionKeySource.PROMPT_CACHE_KEY));
        assertThat(r.shape().chars()).isGreaterThan("be brief".length());
    }

    @Test
    void malformedBodiesSayWhatIsWrong() {
        assertThatThrownBy(() -> read(ApiDialect.OPENAI_CHAT, "{\"model\":", Map.of()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> read(ApiDialect.OPENAI_CHAT, "", Map.of()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> read(ApiDialect.OPENAI_CHAT, "{\"model\":3}", Map.of()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("'model' must be a string");
        assertThatThrownBy(() -> read(ApiDialect.OPENAI_CHAT, "{\"messages\":{}}", Map.of()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("'messages' must be an array");
        assertThatThrownBy(() -> read(ApiDialect.OPENAI_CHAT, "{} {}", Map.of()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("after the JSON object");
        assertThatThrownBy(() -> read(ApiDialect.OPENAI_CHAT, "{}", Map.of("X-data-parallel-rank", "two")))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("X-data-parallel-rank");
    }

    @Test
    void sharedBlocksFindWhereAPromptChanged() throws Exception {
        String base = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "a".repeat(2000) + "\"}]}";
        String changed = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "a".repeat(1000) + "b" + "a".repeat(999) + "\"}]}";
        PromptShape s1 = read(ApiDialect.OPENAI_CHAT, base, Map.of()).shape();
        PromptShape s2 = read(ApiDialect.OPENAI_CHAT, changed, Map.of()).shape();
        int shared = s2.sharedBlocks(s1);
        int changeAt = s1.segments().get(0).startChar() + "<|user|>\n".length() + 1000;
        assertThat(shared).isEqualTo(changeAt / PromptShape.BLOCK_CHARS);
        assertThat(s1.segmentAt(changeAt)).isEqualTo("message 1 (user)");
    }
}
