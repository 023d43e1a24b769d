package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

import java.util.ArrayList;
import java.util.List;

/**
 * NetworkPolicy {@code <name>-replicas} (only with {@code spec.networkPolicy.enabled}): the replica pods
 * accept their port (and, with KV events on, the event ports) only from this ModelDeployment's router pods,
 * and their port from the configured metrics scrapers,
 * so no other pod can bypass the router's tenant salt, admission and admin token by talking to vLLM
 * directly. Egress stays open (model downloads).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class ReplicaNetworkPolicyDependent extends ModelDeploymentDependent<NetworkPolicy> {

    public ReplicaNetworkPolicyDependent() {
        this(OperatorDefaults.builtIn());
    }

    public ReplicaNetworkPolicyDependent(OperatorDefaults defaults) {
        super(NetworkPolicy.class, defaults);
    }

    @Override
    public NetworkPolicy desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        EffectiveSpec spec = effective(md);
        EffectiveSpec.NetworkIsolation isolation = spec.networkPolicy();
        List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
        List<NetworkPolicyPort> routerPorts = new ArrayList<>(List.of(NetworkPolicies.port(ReplicaPodTemplate.PORT)));
        if (spec.router().kvEvents().isPresent()) {
            // The routers subscribe to every engine's publisher and ask its replay socket for missed events.
            routerPorts.addAll(new KvEventPorts(spec.enginesPerPod()).networkPolicyPorts());
        }
        ingress.add(NetworkPolicies.rule(NetworkPolicies.podsOf(names, Labels.ROUTER_COMPONENT), routerPorts));
        if (!isolation.metricsScrapers().isEmpty()) {
            ingress.add(NetworkPolicies.rule(isolation.metricsScrapers(), ReplicaPodTemplate.PORT));
        }
        return NetworkPolicies.ingressOnly(metadata(names.replicaNetworkPolicy(), names, Labels.REPLICA_COMPONENT),
                names, Labels.REPLICA_COMPONENT, ingress);
    }
}
