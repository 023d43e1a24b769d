package io.lmwarden.sim;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.completions.CompletionUsage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The official SDKs parse our replies. OpenAI's base URL includes /v1, Anthropic's does not. */
class SdkCompatibilityTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private static SimCluster cluster;
    private static OpenAIClient openai;
    private static AnthropicClient anthropic;

    @BeforeAll
    static void start() {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(20));
        String url = cluster.urls().get(0);
        openai = OpenAIOkHttpClient.builder().baseUrl(url + "/v1").apiKey("sk-sim").maxRetries(0).build();
        anthropic = AnthropicOkHttpClient.builder().baseUrl(url).apiKey("sk-ant-sim").maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        anthropic.close();
        cluster.close();
    }

    @Test
    void openAiChatNonStreaming() {
        String user = SimHttp.text(1200, 41);
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(MODEL)
                .addSystemMessage("You are a coding agent.").addUserMessage(user).maxCompletionTokens(12).build();
        openai.chat().completions().create(params);
        ChatCompletion c = openai.chat().completions().create(params);
        c.validate();
        assertThat(c.model()).isEqualTo(MODEL);
        assertThat(c.choices()).hasSize(1);
        assertThat(c.choices().get(0).message().content()).hasValueSatisfying(t -> assertThat(t).hasSize(48));
        assertThat(c.choices().get(0).finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
        CompletionUsage usage = c.usage().orElseThrow();
        assertThat(usage.completionTokens()).isEqualTo(12);
        assertThat(usage.promptTokensDetails().orElseThrow().cachedTokens().orElseThrow())
                .isGreaterThan(usage.promptTokens() - 32);
    }

    @Test
    void openAiChatStreamingWithUsage() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage("stream please").maxCompletionTokens(20)
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
        assertThat(text).hasSize(80);
        ChatCompletionChunk last = chunks.get(chunks.size() - 1);
        assertThat(last.choices()).isEmpty();
        assertThat(last.usage().orElseThrow().completionTokens()).isEqualTo(20);
        assertThat(chunks.stream().flatMap(c -> c.choices().stream())
                .anyMatch(ch -> ch.finishReason().isPresent())).isTrue();
    }

    @Test
    void openAiCompletions() {
        Completion c = openai.completions().create(CompletionCreateParams.builder()
                .model(MODEL).prompt("def fib(n):").maxTokens(6).build());
        c.validate();
        assertThat(c.choices().get(0).text()).hasSize(24);
        try (var stream = openai.completions().createStreaming(CompletionCreateParams.builder()
                .model(MODEL).prompt("def fib(n):").maxTokens(6).build())) {
            StringBuilder sb = new StringBuilder();
            stream.stream().forEach(chunk -> chunk.choices().forEach(ch -> sb.append(ch.text())));
            assertThat(sb).hasSize(24);
        }
    }

    @Test
    void anthropicMessagesNonStreaming() {
        String system = SimHttp.text(1500, 51);
        MessageCreateParams params = MessageCreateParams.builder().model(MODEL).maxTokens(10).system(system)
                .addUserMessage("fix the bug").build();
        anthropic.messages().create(params);
        Message m = anthropic.messages().create(params);
        m.validate();
        assertThat(m.content().get(0).text().orElseThrow().text()).hasSize(40);
        assertThat(m.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("max_tokens"));
        assertThat(m.usage().outputTokens()).isEqualTo(10);
        assertThat(m.usage().cacheReadInputTokens().orElseThrow()).isGreaterThan(300);
        long total = m.usage().inputTokens() + m.usage().cacheReadInputTokens().orElseThrow();
        assertThat(total).isEqualTo(anthropic.messages().countTokens(MessageCountTokensParams.builder().model(MODEL)
                .system(system).addUserMessage("fix the bug").build()).inputTokens());
    }

    @Test
    void anthropicMessagesStreaming() {
        MessageCreateParams params = MessageCreateParams.builder().model(MODEL).maxTokens(15)
                .addUserMessage("stream please").build();
        List<String> types = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        long[] outputTokens = {-1};
        try (StreamResponse<RawMessageStreamEvent> stream = anthropic.messages().createStreaming(params)) {
            stream.stream().forEach(e -> {
                e.validate();
                if (e.isMessageStart()) {
                    types.add("message_start");
                } else if (e.isContentBlockStart()) {
                    types.add("content_block_start");
                } else if (e.isContentBlockDelta()) {
                    types.add("content_block_delta");
                    e.asContentBlockDelta().delta().text().ifPresent(t -> text.append(t.text()));
                } else if (e.isContentBlockStop()) {
                    types.add("content_block_stop");
                } else if (e.isMessageDelta()) {
                    types.add("message_delta");
                    outputTokens[0] = e.asMessageDelta().usage().outputTokens();
                } else if (e.isMessageStop()) {
                    types.add("message_stop");
                }
            });
        }
        assertThat(types.get(0)).isEqualTo("message_start");
        assertThat(types.subList(types.size() - 3, types.size()))
                .containsExactly("content_block_stop", "message_delta", "message_stop");
        assertThat(text).hasSize(60);
        assertThat(outputTokens[0]).isEqualTo(15);
    }
}
