package io.lmwarden.router.session;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a request's session key in the documented order, first match wins:
 * {@code X-Claude-Code-Session-Id}; {@code metadata.user_id}; {@code session-id} / {@code session_id}
 * (Codex); {@code X-Session-Id}; {@code X-Session-Affinity}; body {@code prompt_cache_key};
 * {@code conversation}; {@code user}; else the conversation's lineage ({@link ConversationLineages}),
 * or for a plain completions {@code prompt} a fingerprint of its start.
 */
public final class SessionKeyResolver {

    private static final Pattern LEGACY_USER_ID_SESSION = Pattern.compile("_session_([0-9a-fA-F-]{8,})$");

    private final JsonFactory json = new JsonFactory();
    private final ConversationLineages lineages;

    public SessionKeyResolver(ConversationLineages lineages) {
        this.lineages = lineages;
    }

    /** @param header case-insensitive header lookup, null when absent */
    public SessionKey resolve(SessionKeyFields body, Function<String, String> header) {
        String v = nonBlank(header.apply("x-claude-code-session-id"));
        if (v != null) {
            return new SessionKey(v, SessionKeySource.CLAUDE_CODE_HEADER);
        }
        v = sessionFromUserId(body.metadataUserId());
        if (v != null) {
            return new SessionKey(v, SessionKeySource.METADATA_USER_ID);
        }
        v = nonBlank(header.apply("session-id"));
        if (v == null) {
            v = nonBlank(header.apply("session_id"));
        }
        if (v != null) {
            return new SessionKey(v, SessionKeySource.CODEX_HEADER);
        }
        v = nonBlank(header.apply("x-session-id"));
        if (v != null) {
            return new SessionKey(v, SessionKeySource.SESSION_ID_HEADER);
        }
        v = nonBlank(header.apply("x-session-affinity"));
        if (v != null) {
            return new SessionKey(v, SessionKeySource.SESSION_AFFINITY_HEADER);
        }
        if (nonBlank(body.promptCacheKey()) != null) {
            return new SessionKey(body.promptCacheKey(), SessionKeySource.PROMPT_CACHE_KEY);
        }
        if (nonBlank(body.conversation()) != null) {
            return new SessionKey(body.conversation(), SessionKeySource.CONVERSATION);
        }
        if (nonBlank(body.user()) != null) {
            return new SessionKey(body.user(), SessionKeySource.USER);
        }
        long[] turns = body.turnHashes().get();
        if (turns.length > 0) {
            return new SessionKey(lineages.keyOf(turns), SessionKeySource.LINEAGE);
        }
        return new SessionKey(String.format("fp-%016x", body.fixedStartHash().getAsLong()), SessionKeySource.FINGERPRINT);
    }

    /** {@code metadata.user_id} is either JSON with {@code session_id} or the legacy {@code user_…_session_<uuid>}. */
    String sessionFromUserId(String userId) {
        if (userId == null || userId.isBlank()) {
            return null;
        }
        String t = userId.trim();
        if (t.startsWith("{")) {
            try (JsonParser p = json.createParser(t)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return null;
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken value = p.nextToken();
                    if ("session_id".equals(name) && value == JsonToken.VALUE_STRING) {
                        return nonBlank(p.getText());
                    }
                    p.skipChildren();
                }
            } catch (IOException e) {
                return null;
            }
            return null;
        }
        Matcher m = LEGACY_USER_ID_SESSION.matcher(t);
        return m.find() ? m.group(1) : null;
    }

    private static String nonBlank(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
