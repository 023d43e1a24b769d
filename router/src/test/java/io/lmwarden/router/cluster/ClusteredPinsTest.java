package io.lmwarden.router.cluster;

import io.lmwarden.common.net.LoopbackPorts;
import io.lmwarden.router.config.ClusterSettings;
import io.lmwarden.router.placement.pins.SessionPins;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Two cluster members on loopback: pin races end with one pin, moves and releases reach the other member. */
@Tag("cluster")
class ClusteredPinsTest {

    private static final String MODEL = "m";

    @Test
    void racingClaimsEndWithOnePinAndTheLoserFollowsTheWinner() throws Exception {
        List<Integer> ports = LoopbackPorts.freePairs(2);
        try (InfinispanCluster a = member(ports, 0); InfinispanCluster b = member(ports, 1)) {
            awaitMembers(b, 2);
            SessionPins pa = a.pins();
            SessionPins pb = b.pins();
            long now = System.nanoTime();

            // One after the other: the second router gets the first one's pin back.
            assertThat(claim(pa, MODEL, "s-seq", Optional.empty(), "sim-0", now)).isEqualTo("sim-0");
            assertThat(claim(pb, MODEL, "s-seq", Optional.empty(), "sim-1", now)).isEqualTo("sim-0");
            assertThat(pb.lookup(MODEL, "s-seq", now)).contains("sim-0");

            // At once, 200 sessions, each router placing every session on a different replica.
            int n = 200;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> fromA = new ArrayList<>();
            List<Future<String>> fromB = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String key = "race-" + i;
                fromA.add(pool.submit(() -> {
                    go.await();
                    return claim(pa, MODEL, key, Optional.empty(), "sim-a", System.nanoTime());
                }));
                fromB.add(pool.submit(() -> {
                    go.await();
                    return claim(pb, MODEL, key, Optional.empty(), "sim-b", System.nanoTime());
                }));
            }
            go.countDown();
            int aWon = 0;
            for (int i = 0; i < n; i++) {
                String ra = fromA.get(i).get(30, TimeUnit.SECONDS);
                String rb = fromB.get(i).get(30, TimeUnit.SECONDS);
                assertThat(rb).as("both routers' pin for race-%d", i).isEqualTo(ra);
                assertThat(pa.lookup(MODEL, "race-" + i, System.nanoTime())).contains(ra);
                assertThat(pb.lookup(MODEL, "race-" + i, System.nanoTime())).contains(ra);
                aWon += ra.equals("sim-a") ? 1 : 0;
            }
            pool.shutdown();
            assertThat(a.pinRacesLost() + b.pinRacesLost()).as("every race has a loser").isEqualTo(n + 1);
            System.out.printf("pin races: router a won %d of %d%n", aWon, n);

            // A move on one router is what the other reads next, from its own memory.
            pa.pin(MODEL, "s-seq", "sim-2", now);
            awaitPin(pb, "s-seq", Optional.of("sim-2"));
            assertThat(pb.sessionsOn("sim-2")).isEqualTo(1);

            // A replica that leaves releases its sessions everywhere; a home that left is re-claimed once.
            pb.release("sim-2");
            awaitPin(pa, "s-seq", Optional.empty());
            assertThat(pa.sessionsOn("sim-2")).isZero();
            assertThat(claim(pa, MODEL, "s-seq", Optional.of("sim-2"), "sim-3", now)).isEqualTo("sim-3");
            assertThat(claim(pb, MODEL, "s-seq", Optional.of("sim-2"), "sim-4", now)).isEqualTo("sim-3");
            assertThat(a.pins().size()).isEqualTo(b.pins().size()).isEqualTo(n + 1);
        }
    }

    @Test
    void aJoiningMemberKnowsThePinsBeforeItIsUsableAndEveryMemberSeesPeersLoad() throws Exception {
        List<Integer> ports = LoopbackPorts.freePairs(2);
        try (InfinispanCluster a = member(ports, 0)) {
            for (int i = 0; i < 1000; i++) {
                claim(a.pins(), MODEL, "old-" + i, Optional.empty(), "sim-" + (i % 4), System.nanoTime());
            }
            a.publish(new MemberLoad(java.util.Map.of("sim-1", 5), java.util.Map.of("sim-1", 700L), 1000, 0));
            try (InfinispanCluster b = member(ports, 1)) {
                // start() returned: the pins are there, counted per replica, read locally.
                assertThat(b.pins().size()).isEqualTo(1000);
                assertThat(b.pins().sessionsOn("sim-3")).isEqualTo(250);
                assertThat(b.pins().lookup(MODEL, "old-7", System.nanoTime())).contains("sim-3");
                assertThat(b.peerInFlight("sim-1")).isEqualTo(5);
                assertThat(b.peerResidentBlocks("sim-1")).isEqualTo(700);
                assertThat(a.peerInFlight("sim-1")).as("a router does not count itself as a peer").isZero();
                b.publish(new MemberLoad(java.util.Map.of("sim-1", 2), java.util.Map.of(), 1000, 0));
                awaitTrue(() -> a.peerInFlight("sim-1") == 2);
                // Agreement needs both reports from the current view: a reported before b joined, and reports again (as its timer would).
                assertThat(a.view().agree()).isFalse();
                a.publish(new MemberLoad(java.util.Map.of("sim-1", 5), java.util.Map.of("sim-1", 700L), 1000, 0));
                awaitTrue(() -> a.view().agree() && b.view().agree());
                assertThat(a.view().members()).hasSize(2);
            }
            // The peer left: its in-flight requests are gone with it.
            awaitTrue(() -> a.peerInFlight("sim-1") == 0 && a.view().members().size() == 1);
        }
    }

    /** The pin that holds once the cluster settled the claim. */
    static String claim(SessionPins pins, String model, String session, Optional<String> previous, String replica, long now) {
        return pins.claim(model, session, previous, replica, now).toCompletableFuture().join();
    }

    static InfinispanCluster member(List<Integer> ports, int i) {
        List<String> members = ports.stream().map(p -> "127.0.0.1:" + p).toList();
        return InfinispanCluster.start(ClusterSettings.single().withStatic(members, ports.get(i)), 100_000, Duration.ofHours(1));
    }

    static void awaitMembers(InfinispanCluster c, int n) {
        awaitTrue(() -> c.view().members().size() == n);
    }

    private static void awaitPin(SessionPins p, String key, Optional<String> expected) {
        awaitTrue(() -> p.peek(MODEL, key).equals(expected));
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

}
