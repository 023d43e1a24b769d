package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;

import java.util.Arrays;
import java.util.List;

/** Ingress rules of the two NetworkPolicies. */
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
}
