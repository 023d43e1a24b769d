package io.lmwarden.operator.dependent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.KvEventsSpec;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code spec.router.kvEvents}: the flags, the hash seed, the ports under the names the router looks for, and the
 * NetworkPolicy that lets only the routers reach them. The config's keys are vLLM's {@code KVEventsConfig} fields
 * and the per-rank port offset is {@code ZmqEventPublisher.offset_endpoint_port} (both endpoints), as read in vLLM's
 * source ({@code vllm/config/kv_events.py}, {@code vllm/distributed/kv_events.py}).
 */
class KvEventsDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void vllmPublishesOnTheContractPortsWithOneHashSeedForAllReplicas() throws Exception {
        ModelDeployment md = withEvents(SampleModelDeployments.qwenDp4("ns"));
        Container vllm = container(md);

        JsonNode config = JSON.readTree(argAfter(vllm.getArgs(), "--kv-events-config"));
        assertThat(config.path("enable_kv_cache_events").asBoolean()).isTrue();
        assertThat(config.path("publisher").asText()).isEqualTo("zmq");
        assertThat(config.path("endpoint").asText()).isEqualTo("tcp://*:5557");
        assertThat(config.path("replay_endpoint").asText()).isEqualTo("tcp://*:5558");
        assertThat(config.path("topic").asText()).isEqualTo("kv-events");
        assertThat(config.size()).as("only keys vLLM's KVEventsConfig has").isEqualTo(5);
        assertThat(vllm.getArgs()).containsSubsequence("--prefix-caching-hash-algo", "sha256");

        EnvVar seed = vllm.getEnv().stream().filter(e -> e.getName().equals("PYTHONHASHSEED")).findFirst().orElseThrow();
        assertThat(Long.parseLong(seed.getValue())).isBetween(0L, 4_294_967_295L);
        assertThat(container(withEvents(SampleModelDeployments.qwenDp4("ns"))).getEnv()).as("stable: the same after a restart")
                .contains(seed);
        ModelDeployment elsewhere = withEvents(SampleModelDeployments.qwenDp4("other-ns"));
        assertThat(container(elsewhere).getEnv()).as("another ModelDeployment has its own").doesNotContain(seed);

        assertThat(vllm.getPorts()).extracting(ContainerPort::getName, ContainerPort::getContainerPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("http", 8000), org.assertj.core.groups.Tuple.tuple("kv-events", 5557),
                        org.assertj.core.groups.Tuple.tuple("kv-replay", 5558));
    }

    @Test
    void theReplicaServiceCarriesThePortsByNameForTheEndpointSlices() {
        ModelDeployment md = withEvents(SampleModelDeployments.qwenDp4("ns"));
        Service service = new ReplicaServiceDependent(DEFAULTS).desired(md);
        assertThat(service.getSpec().getPorts()).extracting(ServicePort::getName, ServicePort::getPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("http", 8000), org.assertj.core.groups.Tuple.tuple("kv-events", 5557),
                        org.assertj.core.groups.Tuple.tuple("kv-replay", 5558));
        // Each Service port reaches the container port of the same number.
        List<ContainerPort> containerPorts = container(md).getPorts();
        assertThat(service.getSpec().getPorts()).allSatisfy(p -> assertThat(containerPorts)
                .anySatisfy(c -> assertThat(c.getName()).isEqualTo(p.getName())));
        assertThat(new ReplicaServiceDependent(DEFAULTS).desired(SampleModelDeployments.qwenDp4("ns")).getSpec().getPorts())
                .as("without events only http").extracting(ServicePort::getName).containsExactly("http");
    }

    @Test
    void aDataParallelServerPublishesOnePortPerRankAndTheReplayRangeStartsAfterTheEventRange() throws Exception {
        ModelDeployment md = withEvents(SampleModelDeployments.qwenDp4("ns"));
        md.getSpec().setReplicaLayout("dataParallelServer");
        Container vllm = container(md);

        JsonNode config = JSON.readTree(argAfter(vllm.getArgs(), "--kv-events-config"));
        assertThat(config.path("endpoint").asText()).isEqualTo("tcp://*:5557");
        assertThat(config.path("replay_endpoint").asText()).as("rank 1..3 publish on 5558..5560").isEqualTo("tcp://*:5561");
        Map<String, Integer> ports = new java.util.LinkedHashMap<>();
        vllm.getPorts().forEach(p -> ports.put(p.getName(), p.getContainerPort()));
        assertThat(ports).containsExactly(Map.entry("http", 8000),
                Map.entry("kv-events", 5557), Map.entry("kv-events-1", 5558), Map.entry("kv-events-2", 5559), Map.entry("kv-events-3", 5560),
                Map.entry("kv-replay", 5561), Map.entry("kv-replay-1", 5562), Map.entry("kv-replay-2", 5563), Map.entry("kv-replay-3", 5564));
        assertThat(ports.keySet()).allSatisfy(name -> assertThat(name.length()).as("a port name is at most 15 characters").isLessThanOrEqualTo(15));

        md.getSpec().setNetworkPolicy(new io.lmwarden.operator.model.NetworkPolicySpec());
        md.getSpec().getNetworkPolicy().setEnabled(true);
        List<NetworkPolicyPort> opened = new ReplicaNetworkPolicyDependent(DEFAULTS).desired(md).getSpec().getIngress().get(0).getPorts();
        assertThat(opened).extracting(p -> p.getPort().getIntVal(), NetworkPolicyPort::getEndPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(8000, null), org.assertj.core.groups.Tuple.tuple(5557, 5560),
                        org.assertj.core.groups.Tuple.tuple(5561, 5564));
    }

    @Test
    void onlyTheRoutersMayReachTheEventPortsScrapersKeepOnlyTheHttpPort() {
        ModelDeployment md = withEvents(SampleModelDeployments.isolated("llm"));
        NetworkPolicy policy = new ReplicaNetworkPolicyDependent(DEFAULTS).desired(md);
        var rules = policy.getSpec().getIngress();
        assertThat(rules).hasSize(2);
        assertThat(rules.get(0).getFrom()).singleElement().satisfies(peer -> assertThat(peer.getPodSelector().getMatchLabels())
                .containsEntry("app.kubernetes.io/component", "router"));
        assertThat(rules.get(0).getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(8000, 5557, 5558);
        assertThat(rules.get(0).getPorts()).allSatisfy(p -> assertThat(p.getEndPort()).as("one engine, single ports").isNull());
        assertThat(rules.get(1).getFrom()).containsExactly(SampleModelDeployments.namespacePeer("monitoring"));
        assertThat(rules.get(1).getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(8000);
        // Every port the replica container serves is opened to the routers.
        assertThat(container(md).getPorts()).allSatisfy(c -> assertThat(rules.get(0).getPorts())
                .anySatisfy(p -> assertThat(c.getContainerPort()).isBetween(p.getPort().getIntVal(),
                        p.getEndPort() == null ? p.getPort().getIntVal() : p.getEndPort())));
    }

    @Test
    void simulatedReplicasGetTheSameEventsConfigAndPorts() throws Exception {
        ModelDeployment md = withEvents(SampleModelDeployments.simulated("ns", 2));
        Container sim = container(md);
        JsonNode config = JSON.readTree(argAfter(sim.getArgs(), "--kv-events-config"));
        assertThat(config.path("endpoint").asText()).isEqualTo("tcp://*:5557");
        assertThat(config.path("replay_endpoint").asText()).isEqualTo("tcp://*:5558");
        assertThat(sim.getArgs()).as("the simulator has no vLLM hash").doesNotContain("--prefix-caching-hash-algo");
        assertThat(sim.getPorts()).extracting(ContainerPort::getName).containsExactly("http", "kv-events", "kv-replay");
    }

    @Test
    void theHashAlgorithmAndTheUsersOwnSeedAreKeptAndFlagsAreNotGivenTwice() {
        ModelDeployment md = withEvents(SampleModelDeployments.qwenDp4("ns"));
        md.getSpec().getRouter().getKvEvents().setHashAlgorithm("sha256_cbor");
        md.getSpec().setEnv(List.of(new EnvVarBuilder().withName("PYTHONHASHSEED").withValue("42").build()));
        Container vllm = container(md);
        assertThat(vllm.getArgs()).containsSubsequence("--prefix-caching-hash-algo", "sha256_cbor");
        assertThat(vllm.getEnv()).filteredOn(e -> e.getName().equals("PYTHONHASHSEED")).singleElement()
                .satisfies(e -> assertThat(e.getValue()).isEqualTo("42"));

        md.getSpec().getRouter().getKvEvents().setHashAlgorithm("md5");
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).hasMessageContaining("hashAlgorithm must be sha256, sha256_cbor");
        md.getSpec().getRouter().getKvEvents().setHashAlgorithm(null);
        md.getSpec().setExtraArgs(List.of("--kv-events-config", "{}"));
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).hasMessageContaining("spec.extraArgs sets --kv-events-config");

        md.getSpec().getRouter().getKvEvents().setEnabled(false);
        assertThat(container(md).getArgs()).as("off: the user's own flags are theirs").contains("--kv-events-config");
    }

    static ModelDeployment withEvents(ModelDeployment md) {
        if (md.getSpec().getRouter() == null) {
            md.getSpec().setRouter(new io.lmwarden.operator.model.RouterSpec());
        }
        md.getSpec().getRouter().setKvEvents(new KvEventsSpec(true, null));
        return md;
    }

    private static Container container(ModelDeployment md) {
        return new VllmStatefulSetDependent(DEFAULTS).desired(md).getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static String argAfter(List<String> args, String flag) {
        int i = args.indexOf(flag);
        assertThat(i).as(flag + " in " + args).isNotNegative();
        return args.get(i + 1);
    }
}
