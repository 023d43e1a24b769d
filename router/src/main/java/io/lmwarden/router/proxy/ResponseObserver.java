package io.lmwarden.router.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.buffer.Buffer;

import java.io.IOException;

/**
 * Watches a response go by without holding it: finds whether the stream really completed and the
 * usage figures the engine reported. Completion is decided from parsed SSE events, for every API:
 * the {@code event:} field and the top-level JSON {@code type} of each {@code data:} field (OpenAI's
 * {@code [DONE]}, Anthropic's {@code message_stop}, the Responses API's {@code response.completed}),
 * so the optional space after a field's colon or inside the JSON changes nothing. Works line by line
 * across chunk boundaries; usage keys are ASCII, so bytes are read as Latin-1 without decoding UTF-8.
 */
public final class ResponseObserver implements BodyInterceptor {

    private static final JsonFactory JSON = new JsonFactory();
    private static final String[] KEYS = {"\"cached_tokens\"", "\"cache_read_input_tokens\"", "\"prompt_tokens\"",
            "\"input_tokens\"", "\"completion_tokens\"", "\"output_tokens\""};
    private static final int MAX_LINE = 1 << 20;

    private final ApiDialect dialect;
    private final StringBuilder line = new StringBuilder(256);
    private final long[] values = {-1, -1, -1, -1, -1, -1};
    /** The {@code event:} field of the SSE event being read; an empty line ends the event. */
    private String event = "";
    private boolean completed;
    private boolean errorSeen;
    private long bytes;

    public ResponseObserver(ApiDialect dialect) {
        this.dialect = dialect;
    }

    public void accept(Buffer chunk) {
        int n = chunk.length();
        bytes += n;
        // Read in place: a copy of every chunk would be garbage as large as the whole response.
        for (int i = 0; i < n; i++) {
            char c = (char) (chunk.getByte(i) & 0xff);
            if (c == '\n') {
                endLine();
            } else if (line.length() < MAX_LINE) {
                line.append(c);
            }
        }
    }

    /** Reads the chunk and passes it on as it is. */
    @Override
    public Buffer chunk(Buffer in) {
        accept(in);
        return in;
    }

    /** The response ended: a non-streaming body has no trailing newline. Nothing was held back. */
    @Override
    public Buffer end() {
        endLine();
        return Buffer.buffer();
    }


    private void endLine() {
        int len = line.length();
        if (len > 0 && line.charAt(len - 1) == '\r') {
            line.setLength(--len);
        }
        if (len == 0) {
            event = "";
            return;
        }
        String l = line.toString();
        line.setLength(0);
        if (l.startsWith("event:")) {
            event = fieldValue(l, 6);
            onEvent(event);
            return;
        }
        if (l.startsWith("data:")) {
            String data = fieldValue(l, 5);
            if (data.equals("[DONE]")) {
                completed = true;
                return;
            }
            onEvent(topLevelType(data));
        }
        scanUsage(l);
    }

    /** SSE: the value after the colon, one leading space removed. */
    private static String fieldValue(String l, int colonEnd) {
        return l.startsWith(" ", colonEnd) ? l.substring(colonEnd + 1) : l.substring(colonEnd);
    }

    private void onEvent(String name) {
        switch (name) {
            case "message_stop", "response.completed" -> completed = true;
            case "error", "response.failed", "response.incomplete" -> errorSeen = true;
            default -> {
            }
        }
    }

    /**
     * The {@code type} field of the JSON object itself, not of anything nested in it (a Responses
     * event puts its own type after the whole response object); {@code "error"} for an error object.
     */
    private static String topLevelType(String data) {
        try (JsonParser p = JSON.createParser(data)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return "";
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (name.equals("type") && v == JsonToken.VALUE_STRING) {
                    return p.getText();
                }
                if (name.equals("error") && v == JsonToken.START_OBJECT) {
                    return "error";
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            // Not JSON: no type.
        }
        return "";
    }

    private void scanUsage(String l) {
        for (int k = 0; k < KEYS.length; k++) {
            int at = l.lastIndexOf(KEYS[k]);
            if (at >= 0) {
                long v = numberAfter(l, at + KEYS[k].length());
                if (v >= 0) {
                    values[k] = v;
                }
            }
        }
    }

    private static long numberAfter(String s, int from) {
        int i = from;
        while (i < s.length() && (s.charAt(i) == ':' || s.charAt(i) == ' ')) {
            i++;
        }
        long v = 0;
        int digits = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
            digits++;
        }
        return digits == 0 ? -1 : v;
    }

    public boolean completed() {
        return completed;
    }

    public boolean errorSeen() {
        return errorSeen;
    }

    public long bytes() {
        return bytes;
    }

    /** Cached prompt tokens the engine reported, or -1 when it reported none. */
    public long cachedTokens() {
        return values[0] >= 0 ? values[0] : values[1];
    }

    /** Prompt tokens the engine reported, or -1. Anthropic's {@code input_tokens} excludes cache reads. */
    public long promptTokens() {
        if (values[2] >= 0) {
            return values[2];
        }
        if (values[3] >= 0) {
            return dialect.anthropic() && values[1] > 0 ? values[3] + values[1] : values[3];
        }
        return -1;
    }

    public long outputTokens() {
        return values[4] >= 0 ? values[4] : values[5];
    }
}
