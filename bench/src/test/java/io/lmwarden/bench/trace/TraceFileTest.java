package io.lmwarden.bench.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TraceFileTest {

    @Test
    void linesBecomeSessionsInTheOrderOfTheirFirstTurn(@TempDir Path dir) throws Exception {
        Path f = SmallTrace.write(dir);
        List<TraceSession> sessions = TraceFile.read(f);
        assertThat(sessions).hasSize(4);
        assertThat(sessions.get(0).id()).isNull();
        assertThat(sessions.get(1).id()).isEqualTo("s1");
        assertThat(sessions.get(1).turns()).extracting(TraceRequest::line).containsExactly(2, 5);
        assertThat(sessions.get(3).turns().get(0).inputLength()).isEqualTo(5000);
        assertThat(sessions.get(1).turns().get(1).delayMs()).isEqualTo(2000);
        assertThat(sessions.get(1).startMs()).isEqualTo(100);
        assertThat(sessions.get(2).startMs()).isEqualTo(1000);

        Trace half = Trace.load(new TraceReplay(f, 64, 2, java.time.Duration.ofMillis(400)));
        assertThat(half.sessions()).hasSize(2); // at speed 2 the request at 1000 ms is due at 500 ms, after 400 ms
        assertThat(half.skippedSessions()).isEqualTo(2);
    }

    @Test
    void equalHashIdsAreEqualTextBlocksAndTheLastBlockIsCut() {
        TraceRequest a = new TraceRequest(1, 0, 300, 20, new long[] {1, 2, 3, 4, 5}, null, -1);
        TraceRequest b = new TraceRequest(2, 0, 250, 5, new long[] {1, 2, 3, 4}, null, -1);
        TraceRequest c = new TraceRequest(3, 0, 200, 5, new long[] {1, 9, 3}, null, -1);
        String ta = TracePrompt.of(a, 64, 42);
        String tb = TracePrompt.of(b, 64, 42);
        String tc = TracePrompt.of(c, 64, 42);
        assertThat(ta).hasSize(300 * 4);
        assertThat(tb).hasSize(250 * 4);
        assertThat(ta).startsWith(tb);
        assertThat(tc.substring(0, 256)).isEqualTo(ta.substring(0, 256));
        assertThat(tc.substring(256, 512)).isNotEqualTo(ta.substring(256, 512));
        // fewer ids than the length needs: the rest is text of its own
        assertThat(TracePrompt.of(new TraceRequest(4, 0, 100, 5, new long[] {1}, null, -1), 64, 42)).hasSize(400).startsWith(ta.substring(0, 256));
    }

    @Test
    void badLinesSayWhereAndWhy(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> read(dir, "{\"timestamp\": 0, \"output_length\": 5}")).hasMessageContaining("t.jsonl:1: input_length");
        assertThatThrownBy(() -> read(dir, "{\"input_length\": 5, \"timestamp\": 0, \"delay\": 3}")).hasMessageContaining("not both");
        assertThatThrownBy(() -> read(dir, "{\"text_input\": \"hi\"}")).hasMessageContaining("carry text, not sizes");
        assertThatThrownBy(() -> read(dir, "{\"input_length\": 5, \"prio\": 1}")).hasMessageContaining("unknown field 'prio'");
        assertThatThrownBy(() -> read(dir, "not json")).hasMessageContaining("t.jsonl:1: not a JSON object");
        assertThatThrownBy(() -> read(dir, "")).hasMessageContaining("has no requests");
    }

    private static List<TraceSession> read(Path dir, String text) throws Exception {
        Path f = dir.resolve("t.jsonl");
        Files.writeString(f, text);
        return TraceFile.read(f);
    }

    @Test
    void thePublicMooncakeExcerptReads() {
        List<TraceSession> sessions = TraceFile.read(Path.of("traces/mooncake-conversation-head.jsonl"));
        assertThat(sessions).hasSizeGreaterThan(100);
        assertThat(sessions).allMatch(s -> s.id() == null && s.turns().size() == 1);
        TraceRequest first = sessions.get(0).turns().get(0);
        assertThat(first.hashIds().length).isEqualTo((first.inputLength() + 511) / 512);
    }
}
