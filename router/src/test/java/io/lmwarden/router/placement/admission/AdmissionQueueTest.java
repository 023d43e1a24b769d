package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AdmissionQueueTest {

    @Test
    void firstComeFirstServed() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 1_000);
        q.offer("a", 1);
        q.offer("b", 2);
        q.offer("c", 3);
        var head = q.inOrder().get(0);
        assertThat(head.waiter()).isEqualTo("a");
        q.remove(head);
        assertThat(q.inOrder().get(0).waiter()).isEqualTo("b");
    }

    @Test
    void sessionsInProgressGoBeforeNewcomersTheLeastServedFirstNewcomersInArrivalOrder() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 1_000);
        q.offer("new1", 1);
        q.offer("back2", 2, true, 7.5);
        q.offer("new2", 3);
        q.offer("back1", 4, true, 3.0);
        StringBuilder order = new StringBuilder();
        while (!q.isEmpty()) {
            var h = q.inOrder().get(0);
            order.append(h.waiter()).append(' ');
            q.remove(h);
        }
        assertThat(order.toString().trim()).isEqualTo("back1 back2 new1 new2");
    }

    @Test
    void aFullQueueRefusesTheNextOne() {
        AdmissionQueue<String> q = new AdmissionQueue<>(2, 1_000);
        assertThat(q.offer("a", 1)).isPresent();
        assertThat(q.offer("b", 1)).isPresent();
        assertThat(q.isFull()).isTrue();
        assertThat(q.offer("c", 1)).isEmpty();
        assertThat(q.size()).isEqualTo(2);
    }

    @Test
    void entriesWaitingTheTimeoutOrLongerExpireOldestFirst() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 100);
        q.offer("a", 0);
        q.offer("b", 50);
        q.offer("c", 90);
        assertThat(q.removeExpired(99)).isEmpty();
        assertThat(q.removeExpired(150).stream().map(AdmissionQueue.Entry::waiter)).containsExactly("a", "b");
        assertThat(q.inOrder().get(0).waiter()).isEqualTo("c");
        assertThat(q.oldestWaitNanos(150)).isEqualTo(60);
    }

    @Test
    void aSessionInProgressNeverExpiresButIsReportedOverdue() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 100);
        q.offer("back", 0, true, 1.0);
        q.offer("new", 10);
        assertThat(q.removeExpired(200).stream().map(AdmissionQueue.Entry::waiter)).containsExactly("new");
        assertThat(q.overdue(50)).isEmpty();
        assertThat(q.overdue(200).stream().map(AdmissionQueue.Entry::waiter)).containsExactly("back");
        assertThat(q.size()).isEqualTo(1);
        assertThat(q.oldestWaitNanos(200)).isEqualTo(200);
    }

    @Test
    void aDisconnectedWaiterLeavesFromTheMiddle() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 100);
        q.offer("a", 0);
        var b = q.offer("b", 1).orElseThrow();
        q.offer("c", 2);
        assertThat(q.remove(b)).isTrue();
        assertThat(q.remove(b)).isFalse();
        q.remove(q.inOrder().get(0));
        assertThat(q.inOrder().get(0).waiter()).isEqualTo("c");
    }

    /** Drains the queue in order. */
    private static String drain(AdmissionQueue<String> q) {
        StringBuilder order = new StringBuilder();
        while (!q.isEmpty()) {
            var h = q.inOrder().get(0);
            order.append(h.waiter()).append(' ');
            q.remove(h);
        }
        return order.toString().trim();
    }

    @Test
    void aStepThatWaitedGainsOnStepsOfLessServedSessionsThatCameLater() {
        // Bound 800: every 100 a step waits counts as its session's service halving (8 doublings over the bound).
        AdmissionQueue<String> early = new AdmissionQueue<>(10, 10_000, 800);
        early.offer("heavy", 0, true, 5.0);        // 2^5 times the light session's service, queued first
        early.offer("light", 300, true, 0.0);      // queued 3 doublings later: 5 - 0 > 3, still served first
        assertThat(drain(early)).isEqualTo("light heavy");
        AdmissionQueue<String> late = new AdmissionQueue<>(10, 10_000, 800);
        late.offer("heavy", 0, true, 5.0);
        late.offer("light", 600, true, 0.0);       // 6 doublings later: the heavy step's wait outweighs its service
        assertThat(drain(late)).isEqualTo("heavy light");
    }

    @Test
    void stepsOfEquallyServedSessionsLeaveInArrivalOrder() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 10_000, 800);
        q.offer("first", 10, true, 2.0);
        q.offer("second", 11, true, 2.0);
        q.offer("third", 11, true, 2.0);
        assertThat(drain(q)).isEqualTo("first second third");
    }

    @Test
    void theLeastServedSessionGoesFirstAndAgingCountsAsTheServiceHalvingItWouldHaveHad() {
        // Two sessions served 8,192 and 65,536 tokens at t = 0; 60 s half-life; the wait bound 80 s (1 doubling per 10 s).
        long second = 1_000_000_000L;
        AttainedService service = new AttainedService(60 * second);
        service.add("light", 8_192, 0);
        service.add("heavy", 65_536, 0);
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 300 * second, 80 * second);
        // Queued together: the less served first.
        q.offer("heavy", 20 * second, true, service.orderKey("heavy", 20 * second));
        q.offer("light", 20 * second, true, service.orderKey("light", 20 * second));
        assertThat(q.inOrder().get(0).waiter()).isEqualTo("light");
        // 8x the service is 3 doublings: a step of the heavy session that waited 31 s goes before the light one's new step.
        AdmissionQueue<String> aged = new AdmissionQueue<>(10, 300 * second, 80 * second);
        aged.offer("heavy", 20 * second, true, service.orderKey("heavy", 20 * second));
        aged.offer("light", 51 * second, true, service.orderKey("light", 51 * second));
        assertThat(drain(aged)).isEqualTo("heavy light");
        // A session never served counts as one token now: before both, and aging still applies to it.
        assertThat(service.orderKey("new", 20 * second)).isLessThan(service.orderKey("light", 20 * second));
        assertThat(Double.isFinite(service.orderKey("new", 20 * second))).isTrue();
    }

    @Test
    void aStepOfASessionInProgressIsOverdueAtTheBoundNewcomersOnlyAtTheTimeout() {
        AdmissionQueue<String> q = new AdmissionQueue<>(10, 1_000, 100);
        q.offer("back", 0, true, 1.0);
        q.offer("new", 0);
        assertThat(q.overdue(99)).isEmpty();
        assertThat(q.overdue(100).stream().map(AdmissionQueue.Entry::waiter)).containsExactly("back");
        assertThat(q.removeExpired(100)).isEmpty();
        assertThat(q.removeExpired(1_000).stream().map(AdmissionQueue.Entry::waiter)).containsExactly("new");
    }
}
