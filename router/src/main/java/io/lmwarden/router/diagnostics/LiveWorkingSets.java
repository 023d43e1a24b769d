package io.lmwarden.router.diagnostics;

import io.lmwarden.router.session.PromptShape;

import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the pool's KV cache must hold right now: the distinct prompt blocks of the sessions that sent
 * a step within a short window. Distinct, because a system prompt shared by every session is cached
 * once; a short window, in workload time, because a session that stopped working holds nothing the
 * next placement needs. Sessions are kept in order of their last step, so expiry stops at the first
 * live one.
 */
public final class LiveWorkingSets {

    /** A working set: sessions active in the window and the distinct tokens of their latest prompts. */
    public record Demand(int activeSessions, long distinctTokens) {
    }

    private record Latest(long atMillis, long[] blocks) {
    }

    /** A session counts towards the KV demand while its last step is at most this old, in workload time. */
    public static final Duration ACTIVE_WINDOW_WORKLOAD = Duration.ofMinutes(1);
    /** Sessions whose latest prompt is kept (≈ 8 B per 16 tokens each). */
    public static final int SESSIONS_KEPT = 4096;

    private final long windowMillis;
    private final int maxSessions;
    private final LinkedHashMap<String, Latest> sessions = new LinkedHashMap<>();

    /** @param window wall-clock window: the workload-time window divided by the time scale */
    public LiveWorkingSets(Duration window, int maxSessions) {
        this.windowMillis = Math.max(1, window.toMillis());
        this.maxSessions = maxSessions;
    }

    public long windowMillis() {
        return windowMillis;
    }

    public synchronized void record(String sessionKey, PromptShape shape, long nowMillis) {
        sessions.remove(sessionKey);
        sessions.put(sessionKey, new Latest(nowMillis, shape.blockHashes()));
        if (sessions.size() > maxSessions) {
            Iterator<String> it = sessions.keySet().iterator();
            it.next();
            it.remove();
        }
    }

    public synchronized Demand demand(long nowMillis) {
        Iterator<Map.Entry<String, Latest>> it = sessions.entrySet().iterator();
        while (it.hasNext()) {
            if (nowMillis - it.next().getValue().atMillis() <= windowMillis) {
                break;
            }
            it.remove();
        }
        Set<Long> distinct = new HashSet<>();
        for (Latest l : sessions.values()) {
            if (nowMillis - l.atMillis() <= windowMillis) {
                for (long b : l.blocks()) {
                    distinct.add(b);
                }
            }
        }
        int active = (int) sessions.values().stream().filter(l -> nowMillis - l.atMillis() <= windowMillis).count();
        return new Demand(active, PromptShape.tokensForChars((long) distinct.size() * PromptShape.BLOCK_CHARS));
    }
}
