package io.lmwarden.router.pool;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where discovery finds each replica's KV-event publisher: a static entry's fragment, or the EndpointSlice's named ports. */
class KvEventPublishersDiscoveryTest {

    @Test
    void aStaticEntryNamesItsPublisherAfterTheUrl() {
        assertThat(StaticReplicaDiscovery.parse("gpu-0=http://10.0.0.5:8000#kv=5557&replay=5558"))
                .isEqualTo(new DiscoveredReplica("gpu-0", "http://10.0.0.5:8000", true, 0, false, 5557, 5558));
        assertThat(StaticReplicaDiscovery.parse("http://10.0.0.5:8000#ranks=4&kv=5557&replay=5561"))
                .isEqualTo(new DiscoveredReplica("10.0.0.5:8000", "http://10.0.0.5:8000", true, 4, false, 5557, 5561));
        assertThat(StaticReplicaDiscovery.parse("http://10.0.0.5:8000#kv=5557").kvReplayPort()).isZero();
        assertThat(StaticReplicaDiscovery.parse("http://10.0.0.5:8000").publishesKvEvents()).isFalse();
    }

    @Test
    void aBadPublisherFieldSaysHowToWriteIt() {
        assertThatThrownBy(() -> StaticReplicaDiscovery.parse("http://h:8000#kv=lots"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kv=lots is no port").hasMessageContaining("#kv=5557&replay=5558");
        assertThatThrownBy(() -> StaticReplicaDiscovery.parse("http://h:8000#replay=5558"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs kv=PORT");
        assertThatThrownBy(() -> StaticReplicaDiscovery.parse("http://h:8000#colour=red"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kv=PORT or replay=PORT");
    }

    @Test
    void endpointSlicesNameThePublisherPortsAsTheOperatorDoes() {
        EndpointSlice withEvents = slice(true);
        EndpointSlice without = slice(false);
        DiscoveredReplica d = EndpointSliceDiscovery.replicasOf(List.of(withEvents)).get(0);
        assertThat(d.url()).isEqualTo("http://10.1.2.3:8000");
        assertThat(d.kvEventsPort()).isEqualTo(5557);
        assertThat(d.kvReplayPort()).isEqualTo(5559);
        assertThat(EndpointSliceDiscovery.replicasOf(List.of(without)).get(0).publishesKvEvents()).isFalse();
    }

    /** A replica Service's slice; with events, as the operator lays them out for two engines per pod. */
    private static EndpointSlice slice(boolean events) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName("md-replicas-abc").endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("http").withPort(8000).endPort();
        if (events) {
            b.addNewPort().withName("kv-events").withPort(5557).endPort()
                    .addNewPort().withName("kv-events-1").withPort(5558).endPort()
                    .addNewPort().withName("kv-replay").withPort(5559).endPort()
                    .addNewPort().withName("kv-replay-1").withPort(5560).endPort();
        }
        return b.addNewEndpoint().withAddresses("10.1.2.3").withNewTargetRef().withName("md-0").endTargetRef()
                .withNewConditions().withReady(true).endConditions().endEndpoint().build();
    }
}
