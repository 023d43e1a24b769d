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
}
