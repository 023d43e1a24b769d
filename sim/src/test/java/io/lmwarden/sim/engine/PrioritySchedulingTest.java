package io.lmwarden.sim.engine;

import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * vLLM's {@code --scheduling-policy priority} as the engine simulates it (vllm/v1/core/sched/request_queue.py at
 * 0097c7ed, PriorityRequestQueue: lower priority first, then arrival; vllm/v1/core/sched/scheduler.py at 00024d31:
 * the preempted request is max(running, key=(priority, arrival_time)), FCFS preempts the last admitted).
 */
class PrioritySchedulingTest {

    /** Records the order of first tokens and of finishes, by request name. */
    private static final class Order {
        final List<String> firstTokens = Collections.synchronizedList(new ArrayList<>());
        final List<String> finished = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch done;

        Order(int requests) {
            done = new CountDownLatch(requests);
        }

        RequestListener of(String name) {
            return new RequestListener() {
                @Override
                public void onTokens(int generated, int cachedTokens, boolean first) {
                    if (first) {
                        firstTokens.add(name);
                    }
                }

                @Override
                public void onFinished(FinishedRequest result) {
                    finished.add(name);
                    done.countDown();
                }
            };
        }

        void await() throws InterruptedException {
            // A hang guard only: the engine finishes these in well under a second of simulated time.
            assertThat(done.await(60, TimeUnit.SECONDS)).as("every request finished").isTrue();
        }
    }

    private static int[] tokens(int n, int seed) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = seed * 100_000 + i;
        }
        return t;
    }

    private static List<String> queueOrder(boolean priorityPolicy) throws InterruptedException {
        Engine engine = new Engine(0, SimProfile.named(SimProfile.TINY).withMaxNumSeqs(1), new SimClock(100));
        engine.usePriorityPolicy(priorityPolicy);
        Order order = new Order(4);
        // All queued before the engine starts: it takes them one at a time (max_num_seqs 1) in its queue's order.
        engine.submit(tokens(64, 1), tokens(8, 11), true, null, null, 0, order.of("a:0"));
        engine.submit(tokens(64, 2), tokens(8, 12), true, null, null, 5, order.of("b:5"));
        engine.submit(tokens(64, 3), tokens(8, 13), true, null, null, 1, order.of("c:1"));
        engine.submit(tokens(64, 4), tokens(8, 14), true, null, null, 1, order.of("d:1"));
        engine.start();
        try {
            order.await();
            return List.copyOf(order.firstTokens);
        } finally {
            engine.close();
        }
    }

    @Test
    void underThePriorityPolicyTheQueueRunsLowerPriorityFirstThenByArrival() throws Exception {
        assertThat(queueOrder(true)).containsExactly("a:0", "c:1", "d:1", "b:5");
    }

    @Test
    void underFcfsThePriorityIsTakenAndIgnored() throws Exception {
        assertThat(queueOrder(false)).containsExactly("a:0", "b:5", "c:1", "d:1");
    }

    private static SimRequest running(long id, int priority, double arrival) {
        SimRequest r = new SimRequest(id, tokens(16, (int) id), tokens(4, (int) id + 50), true, 16, null, null, new Order(1).of("r" + id), arrival);
        r.priority = priority;
        return r;
    }

    @Test
    void underThePriorityPolicyTheHigherValueIsPreemptedEvenWhenItWasAdmittedFirst() {
        // Admitted in this order: the first has the highest value, the last the lowest.
        List<SimRequest> running = List.of(running(1, 5, 1.0), running(2, 1, 2.0), running(3, 5, 3.0), running(4, 0, 4.0));
        assertThat(Engine.preemptionVictim(running, true)).as("max by (priority, arrival)").isEqualTo(2);
        assertThat(Engine.preemptionVictim(running, false)).as("FCFS: the last admitted").isEqualTo(3);
    }
}
