package io.lmwarden.router.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Agent sessions stepping through one router at once, each on a thread of its own, a session's steps in turn. */
public final class ConcurrentSessions {

    /** Readies a session's next step (its model, say) and returns the headers it is sent with. */
    public interface BeforeStep {
        Map<String, String> headers(AgentSession session, int step);
    }

    private ConcurrentSessions() {
    }

    /**
     * Runs every session {@code steps} steps (Anthropic Messages, 16 output tokens; a session stops at its first answer
     * other than 200); the replies by session id, in the sessions' order.
     */
    public static Map<String, List<Http.Reply>> run(Http http, String routerUrl, List<AgentSession> sessions, int steps,
                                                    BeforeStep before) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(sessions.size());
        try {
            List<Future<List<Http.Reply>>> running = new ArrayList<>();
            for (AgentSession session : sessions) {
                running.add(pool.submit(() -> {
                    List<Http.Reply> out = new ArrayList<>();
                    for (int step = 0; step < steps; step++) {
                        Map<String, String> headers = before.headers(session, step);
                        Http.Reply r = http.post(routerUrl + "/v1/messages?beta=true", session.nextBody(16, false), headers);
                        out.add(r);
                        if (r.status() != 200) {
                            break;
                        }
                        session.append(AgentSession.replyText(r.body()), 600);
                    }
                    return out;
                }));
            }
            Map<String, List<Http.Reply>> replies = new LinkedHashMap<>();
            for (int i = 0; i < sessions.size(); i++) {
                // A hang guard only.
                replies.put(sessions.get(i).id(), running.get(i).get(120, TimeUnit.SECONDS));
            }
            return replies;
        } finally {
            pool.shutdown();
        }
    }
}
