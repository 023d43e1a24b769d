package io.lmwarden.bench.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A trace written for the tests, blocks of 64 tokens: a request on its own at 0 ms, a session of two turns (at 100 ms, then
 * 2 s after the first ended), a request at 1 s that repeats the first one's first 250 tokens, and one at 1.5 s too long for
 * a 4,096-token window.
 */
public final class SmallTrace {

    private SmallTrace() {
    }

    public static Path write(Path dir) throws IOException {
        return Files.writeString(dir.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 300, "output_length": 20, "hash_ids": [1, 2, 3, 4, 5]}
                {"session_id": "s1", "timestamp": 100, "input_length": 200, "output_length": 10, "hash_ids": [1, 2, 10, 11]}

                {"timestamp": 1000, "input_length": 250, "output_length": 5, "hash_ids": [1, 2, 3, 4]}
                {"session_id": "s1", "delay": 2000, "input_length": 330, "output_length": 10, "hash_ids": [1, 2, 10, 11, 12, 13]}
                {"timestamp": 1500, "input_length": 5000, "output_length": 5, "hash_ids": [7]}
                """);
    }
}
