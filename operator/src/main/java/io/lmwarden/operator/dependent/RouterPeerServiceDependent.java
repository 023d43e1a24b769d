package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * Headless Service {@code <name>-router-peers} over the router pods, only with more than one: its A
 * records are how routers find each other (JGroups DNS_PING). Not-ready pods are listed, since a
 * router becomes ready only after it has joined the others.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterPeerServiceDependent extends ClusterOnlyDependent<Service> {
    public static final int CLUSTER_PORT = 7800;
    public static final int FAILURE_DETECTION_PORT = CLUSTER_PORT + 1;

    public RouterPeerServiceDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterPeerServiceDependent(OperatorDefaults defaults) {
        super(Service.class, defaults);
    }

    @Override
    public Service desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new ServiceBuilder()
                .withMetadata(metadata(names.routerPeers(), names, Labels.ROUTER_COMPONENT))
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .withSelector(Labels.selector(names, Labels.ROUTER_COMPONENT))
                .addNewPort().withName("cluster").withProtocol("TCP").withPort(CLUSTER_PORT)
                .withTargetPort(new IntOrString("cluster")).endPort()
                .addNewPort().withName("cluster-fd").withProtocol("TCP").withPort(FAILURE_DETECTION_PORT)
                .withTargetPort(new IntOrString("cluster-fd")).endPort()
                .endSpec()
                .build();
    }
}
