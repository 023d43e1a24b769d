package io.lmwarden.router.pool;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * EndpointSlice conditions as Kubernetes sets them while a pod stops: {@code terminating=true, serving=true} drains the
 * replica (no new work, requests in flight go on, its pins and prefix index stay), {@code serving=false} takes it out,
 * and the endpoint's removal takes it from the pool. (The informer against fabric8's mock API server, in its own
 * process, is e2e's {@code EndpointSliceDiscoveryIT}.)
 */
class TerminatingEndpointTest {

    private static EndpointSlice slice(String pod, Boolean ready, Boolean serving, Boolean terminating) {
        return new EndpointSliceBuilder()
                .withNewMetadata().withName("svc-" + pod).addToLabels("kubernetes.io/service-name", "svc").endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("http").withPort(8000).endPort()
                .withEndpoints(new EndpointBuilder().withAddresses("10.0.0.1")
                        .withNewConditions().withReady(ready).withServing(serving).withTerminating(terminating).endConditions()
                        .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName(pod).build()).build())
                .build();
    }

    @Test
    void conditionsMapToReadyDrainingOrGone() {
        assertThat(EndpointSliceDiscovery.replicasOf(List.of(slice("a", true, true, false))))
                .containsExactly(new DiscoveredReplica("a", "http://10.0.0.1:8000", true, 0, false));
        assertThat(EndpointSliceDiscovery.replicasOf(List.of(slice("a", false, true, true))))
                .containsExactly(new DiscoveredReplica("a", "http://10.0.0.1:8000", false, 0, true));
        // Serving not stated (older API servers): a terminating endpoint drains.
        assertThat(EndpointSliceDiscovery.replicasOf(List.of(slice("a", false, null, true))).get(0).draining()).isTrue();
        DiscoveredReplica stopped = EndpointSliceDiscovery.replicasOf(List.of(slice("a", false, false, true))).get(0);
        assertThat(stopped.serving()).isFalse();
        DiscoveredReplica unready = EndpointSliceDiscovery.replicasOf(List.of(slice("a", false, false, false))).get(0);
        assertThat(unready.serving()).isFalse();
        // The same pod in two slices during a rollover: ready wins over draining, draining over gone.
        assertThat(EndpointSliceDiscovery.replicasOf(List.of(slice("a", false, true, true), slice("a", true, true, false))).get(0).ready())
                .isTrue();
        assertThat(EndpointSliceDiscovery.replicasOf(List.of(slice("a", false, false, true), slice("a", false, true, true))).get(0).draining())
                .isTrue();
    }

    @Test
    void aTerminatingEndpointDrainsThenLeaves() {
        ReplicaPool pool = new ReplicaPool(Duration.ofSeconds(5));
        List<String> drained = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        pool.onDraining(drained::add);
        pool.onUnavailable(gone::add);
        String url = "http://10.0.0.1:8000";
        pool.apply(List.of(new DiscoveredReplica("a", url, true), new DiscoveredReplica("b", "http://10.0.0.2:8000", true)));
        ReplicaState a = pool.get("a").orElseThrow();
        a.dispatched();

        pool.apply(List.of(new DiscoveredReplica("a", url, false, 0, true), new DiscoveredReplica("b", "http://10.0.0.2:8000", true)));
        assertThat(drained).containsExactly("a");
        assertThat(gone).as("a draining replica keeps its pins and prefix index").isEmpty();
        ReplicaView view = pool.snapshot(id -> 0, System.nanoTime()).byId("a").orElseThrow();
        assertThat(view.ready()).isFalse();
        assertThat(view.drain()).isEqualTo(DrainState.DRAINING);
        a.finished();
        assertThat(pool.snapshot(id -> 0, System.nanoTime()).byId("a").orElseThrow().drain()).isEqualTo(DrainState.DRAINED);

        // The same conditions again tell nobody twice; the endpoint's removal takes it from the pool.
        pool.apply(List.of(new DiscoveredReplica("a", url, false, 0, true), new DiscoveredReplica("b", "http://10.0.0.2:8000", true)));
        assertThat(drained).containsExactly("a");
        pool.apply(List.of(new DiscoveredReplica("b", "http://10.0.0.2:8000", true)));
        assertThat(gone).containsExactly("a");
    }

    @Test
    void anOperatorsDrainAddsToDiscoverysAndIsTakenBack() {
        ReplicaPool pool = new ReplicaPool(Duration.ofSeconds(5));
        List<String> drained = new ArrayList<>();
        pool.onDraining(drained::add);
        pool.apply(List.of(new DiscoveredReplica("a", "http://10.0.0.1:8000", true)));
        pool.operatorDrains(java.util.Set.of("a"));
        assertThat(drained).containsExactly("a");
        assertThat(pool.snapshot(id -> 0, System.nanoTime()).byId("a").orElseThrow().drain()).isEqualTo(DrainState.DRAINED);
        pool.operatorDrains(java.util.Set.of());
        ReplicaView back = pool.snapshot(id -> 0, System.nanoTime()).byId("a").orElseThrow();
        assertThat(back.drain()).isEqualTo(DrainState.NONE);
        assertThat(back.ready()).isTrue();
    }
}
