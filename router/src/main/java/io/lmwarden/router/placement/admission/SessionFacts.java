package io.lmwarden.router.placement.admission;

import java.util.Optional;

/**
 * The session facts the routers of a cluster share ({@link SessionFact}). Both calls run under the admission
 * controller's lock and must not block: {@link #get} reads this member's own copy, {@link #publish} hands the write
 * off and returns. A router alone shares nothing ({@link #NONE}) and behaves as without it.
 */
public interface SessionFacts {

    /** The session's fact as this member holds it now (a peer's latest write may not have arrived yet). */
    Optional<SessionFact> get(String session);

    /** Tells every member the session's fact; where a member holds one already, {@link SessionFact#merge} decides. */
    void publish(SessionFact fact);

    SessionFacts NONE = new SessionFacts() {
        @Override
        public Optional<SessionFact> get(String session) {
            return Optional.empty();
        }

        @Override
        public void publish(SessionFact fact) {
        }
    };
}
