package io.lmwarden.router.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs agent sessions concurrently against a router, step by step, and records where each step went. */
public final class AgentWorkload {

    /** Where every step of every session went, and the prefix-cache counters' change over the run. */
    public record Result(Map<String, List<String>> replicasBySession, Map<String, List<String>> decisionsBySession,
                         long prefixQueries, long prefixHits, List<Integer> statuses) {
        public double hitRate() {
            return prefixQueries == 0 ? 0 : (double) prefixHits / prefixQueries;
        }
    }

    private final int sessions;
    private final int steps;
    private final AgentSession.Identity identity;
    private final int firstTurnChars;
    /** Session s names the model by names[s % n]. */
    private List<String> modelNames = List.of(AgentSession.MODEL);

    public AgentWorkload(int sessions, int steps, AgentSession.Identity identity) {
        this(sessions, steps, identity, 6000);
    }

    public AgentWorkload(int sessions, int steps, AgentSession.Identity identity, int firstTurnChars) {
        this.sessions = sessions;
        this.steps = steps;
        this.identity = identity;
        this.firstTurnChars = firstTurnChars;
    }

    /** Session s names the model {@code names.get(s % names.size())} (served aliases of one model, say). */
    public AgentWorkload withModelNames(List<String> names) {
        this.modelNames = List.copyOf(names);
        return this;
    }

    public Result run(RouterUnderTest router, String sessionPrefix) throws Exception {
        Http http = new Http();
        String system = AgentSession.sharedSystem(4000);
        long[] before = router.sims().prefixCounters();
        Map<String, List<String>> replicas = new ConcurrentHashMap<>();
        Map<String, List<String>> decisions = new ConcurrentHashMap<>();
        List<Integer> statuses = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(sessions);
        List<Future<?>> running = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            String id = sessionPrefix + "-" + s + "-0a1b2c3d-4e5f";
            AgentSession session = new AgentSession(id, identity, system, firstTurnChars, 100 + s)
                    .model(modelNames.get(s % modelNames.size()));
            running.add(pool.submit(() -> {
                List<String> where = new ArrayList<>();
                List<String> why = new ArrayList<>();
                for (int step = 0; step < steps; step++) {
                    Http.Reply r = http.post(router.url() + "/v1/messages?beta=true", session.nextBody(16, false), session.headers());
                    statuses.add(r.status());
                    where.add(r.replica());
                    why.add(r.decision());
                    if (r.status() != 200) {
                        break;
                    }
                    session.append(AgentSession.replyText(r.body()), 800);
                }
                replicas.put(session.id(), where);
                decisions.put(session.id(), why);
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        // The engines count a request's prefix hits at admission; all have finished by now.
        long[] after = router.sims().prefixCounters();
        return new Result(replicas, decisions, after[0] - before[0], after[1] - before[1], statuses);
    }
}
