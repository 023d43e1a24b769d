package io.lmwarden.router.placement.admission;

import io.lmwarden.router.session.RequestFacts;

import java.util.Set;

/**
 * A queued attempt. {@code tried}: the replicas earlier attempts failed on (empty for a first attempt);
 * {@code again}: it holds its admission already and is placed again (a retry), so its step is counted once;
 * {@code inProgress}: a step of a session in progress (or a retry), which queues before newcomers;
 * {@code firstChoice}: where placement sent it before it had to wait; {@code forecast}: a newcomer's forecast wait
 * ({@link WaitPrediction#UNKNOWN} for a session in progress), settled when it leaves the queue.
 */
record PendingAttempt(RequestFacts facts, String session, WorkingSet workingSet, AdmissionController.Waiter waiter, Set<String> tried,
                      boolean again, boolean inProgress, FirstChoice firstChoice,
                      WaitPrediction forecast) {
}
