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
}
