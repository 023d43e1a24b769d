package io.lmwarden.bench.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a trace in the Mooncake / AIPerf JSONL format ({@code mooncake_trace}): one request per line with
 * {@code timestamp} (ms), {@code input_length}, {@code output_length}, {@code hash_ids} and optional {@code session_id}
 * and {@code delay} (ms). Lines that carry text instead of sizes ({@code text_input}, {@code messages}) are refused: the
 * replay needs sizes and block ids.
 */
public final class TraceFile {

    private static final Set<String> KNOWN = Set.of("timestamp", "input_length", "output_length", "hash_ids", "session_id", "delay",
            "type");
    private static final ObjectMapper JSON = new ObjectMapper();

    private TraceFile() {
    }

    /** Every request of {@code file}, in file order, grouped into sessions (a line without a session id is one of its own). */
    public static List<TraceSession> read(Path file) {
        List<TraceRequest> requests = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (!line.isBlank()) {
                    requests.add(parse(line, n, file));
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read trace " + file + ": " + e.getMessage(), e);
        }
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("trace " + file + " has no requests");
        }
        return sessions(requests);
    }

    static TraceRequest parse(String text, int n, Path file) {
        String where = file + ":" + n;
        JsonNode o;
        try {
            o = JSON.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(where + ": not a JSON object: " + e.getMessage());
        }
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException(where + ": each line is one JSON object");
        }
        if (o.has("text_input") || o.has("messages")) {
            throw new IllegalArgumentException(where + ": lines with text_input or messages carry text, not sizes; the replay needs"
                    + " input_length and hash_ids");
        }
        o.fieldNames().forEachRemaining(k -> {
            if (!KNOWN.contains(k)) {
                throw new IllegalArgumentException(where + ": unknown field '" + k + "'; known: " + new java.util.TreeSet<>(KNOWN));
            }
        });
        if (!o.path("input_length").canConvertToInt() || o.path("input_length").asInt() < 1) {
            throw new IllegalArgumentException(where + ": input_length must be a whole number >= 1");
        }
        if (o.has("timestamp") && o.has("delay")) {
            throw new IllegalArgumentException(where + ": a line has a timestamp or a delay, not both");
        }
        JsonNode ids = o.path("hash_ids");
        long[] hashIds = new long[ids.isArray() ? ids.size() : 0];
        for (int i = 0; i < hashIds.length; i++) {
            if (!ids.get(i).canConvertToLong()) {
                throw new IllegalArgumentException(where + ": hash_ids must be whole numbers");
            }
            hashIds[i] = ids.get(i).asLong();
        }
        double timestamp = o.has("timestamp") ? o.get("timestamp").asDouble(-1) : -1;
        double delay = o.has("delay") ? o.get("delay").asDouble(-1) : -1;
        if ((o.has("timestamp") && timestamp < 0) || (o.has("delay") && delay < 0)) {
            throw new IllegalArgumentException(where + ": timestamp and delay are milliseconds >= 0");
        }
        return new TraceRequest(n, timestamp, o.get("input_length").asInt(), Math.max(1, o.path("output_length").asInt(1)), hashIds,
                o.hasNonNull("session_id") ? o.get("session_id").asText() : null, delay);
    }

    /** Sessions in the order of their first line; a request without a session id is a session of one. */
    static List<TraceSession> sessions(List<TraceRequest> requests) {
        Map<String, List<TraceRequest>> bySession = new LinkedHashMap<>();
        int loose = 0;
        for (TraceRequest r : requests) {
            String key = r.sessionId() != null ? "s:" + r.sessionId() : "r:" + loose++;
            bySession.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        List<TraceSession> out = new ArrayList<>();
        bySession.values().forEach(turns -> out.add(new TraceSession(turns.get(0).sessionId(), turns)));
        return out;
    }
}
