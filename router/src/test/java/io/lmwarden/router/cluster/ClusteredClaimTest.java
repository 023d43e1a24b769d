package io.lmwarden.router.cluster;

import io.lmwarden.common.net.LoopbackPorts;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryCreated;
import org.infinispan.notifications.cachelistener.event.CacheEntryCreatedEvent;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pin claim never holds the thread that makes it: with a peer that has not yet applied the write (held here by
 * a listener of its own, as a slow or cut-off peer would), the claim made on an event loop returns at once,
 * uncompleted, the event loop runs its next task meanwhile, and the claim completes with the pin once the peer
 * applies it. Before, the claim waited on the event loop for the peer's acknowledgement (up to the remote timeout).
 */
@Tag("cluster")
class ClusteredClaimTest {

    private static final String MODEL = "m";

    @Test
    void aClaimReturnsUncompletedWhileAPeerHoldsTheWriteAndTheEventLoopRunsOn() throws Exception {
        List<Integer> ports = LoopbackPorts.freePairs(2);
        Vertx vertx = Vertx.vertx();
        try (InfinispanCluster a = ClusteredPinsTest.member(ports, 0); InfinispanCluster b = ClusteredPinsTest.member(ports, 1)) {
            ClusteredPinsTest.awaitMembers(b, 2);
            CountDownLatch reached = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ((ClusteredPins) b.pins()).cache().addListener(new HoldWrite(ClusteredPins.key(MODEL, "slow"), reached, release));

            Context loop = vertx.getOrCreateContext();
            CompletableFuture<CompletionStage<String>> returned = new CompletableFuture<>();
            loop.runOnContext(v -> {
                assertThat(Context.isOnEventLoopThread()).isTrue();
                returned.complete(a.pins().claim(MODEL, "slow", Optional.empty(), "sim-0", System.nanoTime()));
            });
            // The event loop's task returned with the claim in hand while the peer has not applied it.
            CompletableFuture<String> claim = returned.join().toCompletableFuture();
            reached.await();
            CompletableFuture<Boolean> doneWhenLoopRanOn = new CompletableFuture<>();
            loop.runOnContext(v -> doneWhenLoopRanOn.complete(claim.isDone()));
            assertThat(doneWhenLoopRanOn.join()).as("claim settled when the event loop ran its next task").isFalse();
            assertThat(claim).as("claim while the peer holds the write").isNotDone();

            // A second claim of the same session on this router joins the one under way (no race with itself).
            CompletableFuture<String> again = a.pins().claim(MODEL, "slow", Optional.empty(), "sim-1", System.nanoTime()).toCompletableFuture();

            release.countDown();
            assertThat(claim.join()).isEqualTo("sim-0");
            assertThat(again.join()).isEqualTo("sim-0");
            assertThat(a.pinRacesLost()).isZero();
            assertThat(a.pins().lookup(MODEL, "slow", System.nanoTime())).contains("sim-0");
            ClusteredPinsTest.awaitTrue(() -> b.pins().peek(MODEL, "slow").equals(Optional.of("sim-0")));
        } finally {
            vertx.close().await();
        }
    }

    /** A member slow to apply one key's creation: it holds it until released. */
    @Listener
    public static final class HoldWrite {
        private final String key;
        private final CountDownLatch reached;
        private final CountDownLatch release;

        HoldWrite(String key, CountDownLatch reached, CountDownLatch release) {
            this.key = key;
            this.reached = reached;
            this.release = release;
        }

        @CacheEntryCreated
        public void created(CacheEntryCreatedEvent<String, String> e) throws InterruptedException {
            if (e.isPre() && key.equals(e.getKey())) {
                reached.countDown();
                release.await();
            }
        }
    }
}
