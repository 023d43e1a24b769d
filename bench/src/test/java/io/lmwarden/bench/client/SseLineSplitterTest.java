package io.lmwarden.bench.client;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SseLineSplitterTest {

    @Test
    void joinsLinesAndCharactersSplitAcrossChunks() {
        List<String> data = new ArrayList<>();
        SseLineSplitter splitter = new SseLineSplitter(data::add);
        byte[] stream = "event: content_block_delta\r\ndata: {\"t\":\"héllo\"}\r\n\r\ndata: [DONE]\n\n"
                .getBytes(StandardCharsets.UTF_8);
        // feed one byte at a time: splits every line and the two-byte 'é'
        for (byte b : stream) {
            splitter.feed(Buffer.buffer(new byte[] {b}));
        }
        splitter.finish();
        assertThat(data).containsExactly("{\"t\":\"héllo\"}", "[DONE]");
    }

    @Test
    void handsOnAnUnterminatedLastLine() {
        List<String> data = new ArrayList<>();
        SseLineSplitter splitter = new SseLineSplitter(data::add);
        splitter.feed(Buffer.buffer("data: a\ndata:b"));
        assertThat(data).containsExactly("a");
        splitter.finish();
        assertThat(data).containsExactly("a", "b");
    }

    @Test
    void commentLinesGoToTheirOwnHandler() {
        java.util.List<String> data = new java.util.ArrayList<>();
        java.util.List<String> comments = new java.util.ArrayList<>();
        SseLineSplitter s = new SseLineSplitter(data::add, comments::add);
        s.feed(io.vertx.core.buffer.Buffer.buffer(": queued for admission, keep-alive\n\n: lmw replica=sim-1 queue-wait-ms=1200\ndata: {}\n"));
        org.assertj.core.api.Assertions.assertThat(comments).containsExactly("queued for admission, keep-alive", "lmw replica=sim-1 queue-wait-ms=1200");
        org.assertj.core.api.Assertions.assertThat(data).containsExactly("{}");
    }
}
