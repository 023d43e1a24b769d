package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

import java.util.ArrayList;
import java.util.List;

/**
 * NetworkPolicy {@code <name>-router} (only with {@code spec.networkPolicy.enabled}): the router pods
 * accept their port from {@code routerClients} (default: every pod of the namespace) and the metrics
 * scrapers, and the cluster ports only from each other. Selecting the router pods at all makes them
 * isolated, so the port has to be opened here explicitly.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterNetworkPolicyDependent extends ModelDeploymentDependent<NetworkPolicy> {

    public RouterNetworkPolicyDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterNetworkPolicyDependent(OperatorDefaults defaults) {
        super(NetworkPolicy.class, defaults);
    }

    @Override
    public NetworkPolicy desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        EffectiveSpec spec = effective(md);
        EffectiveSpec.NetworkIsolation isolation = spec.networkPolicy();
        List<NetworkPolicyPeer> clients = isolation.routerClients().isEmpty()
                ? List.of(new NetworkPolicyPeerBuilder().withPodSelector(new LabelSelector()).build()) // the namespace
                : isolation.routerClients();
        List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
        ingress.add(NetworkPolicies.rule(clients, RouterSettings.PORT));
        if (!isolation.metricsScrapers().isEmpty()) {
            ingress.add(NetworkPolicies.rule(isolation.metricsScrapers(), RouterSettings.PORT));
        }
        if (RouterClustered.clustered(spec)) {
            ingress.add(NetworkPolicies.rule(NetworkPolicies.podsOf(names, Labels.ROUTER_COMPONENT),
                    RouterPeerServiceDependent.CLUSTER_PORT, RouterPeerServiceDependent.FAILURE_DETECTION_PORT));
        }
        return NetworkPolicies.ingressOnly(metadata(names.routerNetworkPolicy(), names, Labels.ROUTER_COMPONENT),
                names, Labels.ROUTER_COMPONENT, ingress);
    }
}
