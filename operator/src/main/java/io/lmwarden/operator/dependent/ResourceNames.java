package io.lmwarden.operator.dependent;

import io.lmwarden.operator.model.ModelDeployment;

/** Names of the objects made for one ModelDeployment. Router and replicas are told about each
 *  other through these names only, so they are defined once. */
public record ResourceNames(String name, String namespace) {

    public static ResourceNames of(ModelDeployment md) {
        return new ResourceNames(md.getMetadata().getName(), md.getMetadata().getNamespace());
    }

    /** StatefulSet of replica pods; pods are {@code <name>-vllm-0..N-1}, stable replica ids for the router. */
    public String replicaStatefulSet() {
        return name + "-vllm";
    }

    /** Headless Service over the replica pods; the router follows its EndpointSlices. */
    public String replicaService() {
        return name + "-replicas";
    }

    /** Service agents talk to. */
    public String routerService() {
        return name;
    }

    /** Router Deployment, ConfigMap, ServiceAccount, Role and RoleBinding. */
    public String router() {
        return name + "-router";
    }

    /** Headless Service over the router pods, for their cluster discovery (only with more than one router). */
    public String routerPeers() {
        return name + "-router-peers";
    }

    /** The DNS name router pods resolve to find each other (JGroups DNS_PING). */
    public String routerPeersDns() {
        return routerPeers() + "." + namespace + ".svc.cluster.local";
    }

    /** NetworkPolicy over the replica pods (optional). */
    public String replicaNetworkPolicy() {
        return name + "-replicas";
    }

    /** NetworkPolicy over the router pods (optional). */
    public String routerNetworkPolicy() {
        return name + "-router";
    }

    /** In-cluster URL of the router Service (port 80). */
    public String endpoint() {
        return "http://" + routerService() + "." + namespace + ".svc";
    }
}
