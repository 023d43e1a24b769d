package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;

import java.util.Arrays;
import java.util.List;

/** The two NetworkPolicies' shared shape: ingress-only policies over one component's pods, and their rules. */
final class NetworkPolicies {

    private NetworkPolicies() {
    }

    /** TCP on the given ports from the given peers. An empty peer list would mean "from anywhere", so it is refused. */
    static NetworkPolicyIngressRule rule(List<NetworkPolicyPeer> from, int... ports) {
        return rule(from, Arrays.stream(ports).mapToObj(NetworkPolicies::port).toList());
    }

    static NetworkPolicyIngressRule rule(List<NetworkPolicyPeer> from, List<NetworkPolicyPort> ports) {
        if (from.isEmpty()) {
            throw new IllegalStateException("an ingress rule without peers admits everyone");
        }
        return new NetworkPolicyIngressRuleBuilder().withFrom(from).withPorts(ports).build();
    }

    static NetworkPolicyPort port(int port) {
        return new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build();
    }

    /** An ingress-only policy over the pods of one component of this ModelDeployment. */
    static NetworkPolicy ingressOnly(ObjectMeta metadata, ResourceNames names, String component,
                                     List<NetworkPolicyIngressRule> ingress) {
        return new NetworkPolicyBuilder()
                .withMetadata(metadata)
                .withNewSpec()
                .withNewPodSelector().withMatchLabels(Labels.selector(names, component)).endPodSelector()
                .withPolicyTypes("Ingress")
                .withIngress(ingress)
                .endSpec()
                .build();
    }

    /** The pods of one component of this ModelDeployment, as the peers of a rule. */
    static List<NetworkPolicyPeer> podsOf(ResourceNames names, String component) {
        return List.of(new NetworkPolicyPeerBuilder().withNewPodSelector()
                .withMatchLabels(Labels.selector(names, component)).endPodSelector().build());
    }
}
