package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/** Headless Service {@code <name>-replicas} over the replica pods. It gives pods stable DNS names and
 *  its EndpointSlices tell the router which replicas are ready. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class ReplicaServiceDependent extends ModelDeploymentDependent<Service> {

    public ReplicaServiceDependent() {
        this(OperatorDefaults.builtIn());
    }

    public ReplicaServiceDependent(OperatorDefaults defaults) {
        super(Service.class, defaults);
    }

    @Override
    public Service desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new ServiceBuilder()
                .withMetadata(metadata(names.replicaService(), names, Labels.REPLICA_COMPONENT))
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(false)
                .withSelector(Labels.selector(names, Labels.REPLICA_COMPONENT))
                .addNewPort()
                .withName("http").withProtocol("TCP").withPort(ReplicaPodTemplate.PORT)
                .withTargetPort(new IntOrString("http"))
                .endPort()
                .endSpec()
                .build();
    }
}
