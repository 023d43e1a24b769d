package io.lmwarden.router.cluster;

import io.lmwarden.common.net.LoopbackPorts;
import io.lmwarden.router.placement.admission.SessionFact;
import io.lmwarden.router.placement.admission.SessionFacts;
import io.lmwarden.router.testing.Await;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Session facts between real cluster members on loopback: two members writing facts of the same sessions at once
 * end with the same fact on both, the merge of what was written; a member that joins receives them.
 */
@Tag("cluster")
class ClusteredSessionFactsTest {

    private static SessionFact fact(String session, long steps, long end, String replica) {
        return new SessionFact(session, steps, replica, 3_000 + steps, end, (int) steps - 1, 20 + steps, 0.5, 500_000_000L, 100 * steps, end);
    }

    @Test
    void twoMembersWritingOneSessionAtOnceKeepTheMergeOfTheirWrites() throws Exception {
        List<Integer> ports = LoopbackPorts.freePairs(3);
        try (InfinispanCluster a = ClusteredPinsTest.member(ports, 0); InfinispanCluster b = ClusteredPinsTest.member(ports, 1)) {
            Await.until("two members", () -> b.view().members().size() == 2, () -> b.view().toString());
            SessionFacts fa = a.sessionFacts();
            SessionFacts fb = b.sessionFacts();
            int sessions = 100;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> writes = new ArrayList<>();
            List<SessionFact> expected = new ArrayList<>();
            for (int i = 0; i < sessions; i++) {
                String s = "m\u0000race-" + i;
                // Each member ended a step of the session from the same history (same count), at different ends, and
                // wrote its further steps too; some sessions are further on A, some on B.
                List<SessionFact> fromA = List.of(fact(s, 3, 1_000 + i, "sim-0"), fact(s, 4 + i % 2, 2_000, "sim-0"));
                List<SessionFact> fromB = List.of(fact(s, 3, 1_500, "sim-1"), fact(s, 4 + (i + 1) % 2, 1_900 + i % 3 * 100, "sim-1"));
                expected.add(java.util.stream.Stream.concat(fromA.stream(), fromB.stream()).reduce(null, SessionFact::merge));
                writes.add(pool.submit(() -> {
                    go.await();
                    fromA.forEach(fa::publish);
                    return null;
                }));
                writes.add(pool.submit(() -> {
                    go.await();
                    fromB.forEach(fb::publish);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : writes) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            for (int i = 0; i < sessions; i++) {
                String s = "m\u0000race-" + i;
                SessionFact want = expected.get(i);
                Await.until("both members hold the merge of " + s, () -> fa.get(s).equals(Optional.of(want)) && fb.get(s).equals(Optional.of(want)),
                        () -> "A " + fa.get(s) + ", B " + fb.get(s) + ", expected " + want);
            }
            // A write behind what the cluster holds changes nothing.
            String s0 = "m\u0000race-0";
            fb.publish(fact(s0, 2, 9_000, "sim-2"));
            io.lmwarden.router.testing.RouterUnderTest.sleep(200);
            assertThat(fa.get(s0)).contains(expected.get(0));

            // A member that joins receives the facts with the pins.
            try (InfinispanCluster c = ClusteredPinsTest.member(ports, 2)) {
                for (int i = 0; i < sessions; i++) {
                    assertThat(c.sessionFacts().get("m\u0000race-" + i)).contains(expected.get(i));
                }
            }
        }
    }

    @Test
    void aFactTravelsAsJsonUnchanged() {
        SessionFact f = new SessionFact("Qwen/Qwen3-4B\u0000abc", 12, "sim-3", 9_876, 1_765_000_000_123_456_789L, 11, 20.123456789, 3.5,
                812_345_678L, 4_321.5, 1_765_000_000_000_000_001L);
        assertThat(ClusteredSessionFacts.decode(ClusteredSessionFacts.encode(f))).isEqualTo(f);
        assertThat(ClusteredSessionFacts.decode("{not json")).isNull();
    }
}
