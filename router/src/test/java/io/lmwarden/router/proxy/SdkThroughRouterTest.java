package io.lmwarden.router.proxy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.core.http.HttpResponseFor;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The official OpenAI and Anthropic Java SDKs, streaming and not, through the router. */
class SdkThroughRouterTest {

    private static RouterUnderTest router;
    private static OpenAIClient openai;
    private static AnthropicClient anthropic;

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(2, SimProfile.named("tiny"), 20), c -> c);
        openai = OpenAIOkHttpClient.builder().baseUrl(router.url() + "/v1").apiKey("sk-test").maxRetries(0).build();
        anthropic = AnthropicOkHttpClient.builder().baseUrl(router.url()).apiKey("sk-ant-test").maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        anthropic.close();
        router.close();
    }

    @Test
    void openAiStreamsThroughTheRouterWithUsage() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(AgentSession.MODEL)
                .addSystemMessage("You are a coding agent.").addUserMessage("stream through the router")
                .maxCompletionTokens(20).user("sdk-openai-user")
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
        StringBuilder text = new StringBuilder();
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (var stream = openai.chat().completions().createStreaming(params)) {
            stream.stream().forEach(chunk -> {
                chunk.validate();
                chunks.add(chunk);
                chunk.choices().forEach(ch -> ch.delta().content().ifPresent(text::append));
            });
        }
        assertThat(text).isNotEmpty();
        assertThat(chunks.get(chunks.size() - 1).usage().orElseThrow().completionTokens()).isEqualTo(20);
        // The session key came from the body's "user" field.
        // In the namespace of the tenant its API key names.
        String tenant = "key-" + io.lmwarden.router.session.SessionKey.displayHash("sk-test").substring(2);
        assertThat(new Http().get(router.url() + "/api/sessions/" + tenant + "%2Fsdk-openai-user").body())
                .contains("\"source\":\"user\"").contains("\"completed\":true");
    }

    @Test
    void openAiNonStreamingShowsTheRouterHeaders() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(AgentSession.MODEL)
                .addUserMessage("hello").maxCompletionTokens(5).build();
        HttpResponseFor<ChatCompletion> raw = openai.chat().completions().withRawResponse().create(params);
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.headers().values("X-LMW-Replica")).singleElement().asString().startsWith("sim-");
        assertThat(raw.headers().values("X-LMW-Decision")).containsExactly("NEW");
        assertThat(raw.parse().choices()).hasSize(1);
    }

    @Test
    void anthropicStreamsThroughTheRouter() {
        MessageCreateParams params = MessageCreateParams.builder().model(AgentSession.MODEL).maxTokens(15)
                .system("You are Claude Code.").addUserMessage("stream please").build();
        List<String> types = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        try (StreamResponse<RawMessageStreamEvent> stream = anthropic.messages().createStreaming(params)) {
            stream.stream().forEach(e -> {
                e.validate();
                if (e.isMessageStart()) {
                    types.add("message_start");
                } else if (e.isContentBlockDelta()) {
                    e.asContentBlockDelta().delta().text().ifPresent(t -> text.append(t.text()));
                } else if (e.isMessageStop()) {
                    types.add("message_stop");
                }
            });
        }
        assertThat(types).containsExactly("message_start", "message_stop");
        assertThat(text).isNotEmpty();
        var nonStreaming = anthropic.messages().create(params);
        assertThat(nonStreaming.usage().outputTokens()).isEqualTo(15);
        assertThat(nonStreaming.usage().cacheReadInputTokens().orElse(0L)).isPositive();
    }
}
