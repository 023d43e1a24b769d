package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

import java.util.ArrayList;
import java.util.List;

/** Headless Service {@code <name>-replicas} over the replica pods. It gives pods stable DNS names and
 *  its EndpointSlices tell the router which replicas are ready (and, with KV events on, where each publishes them). */
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
        EffectiveSpec spec = effective(md);
        List<ServicePort> ports = new ArrayList<>();
        ports.add(new ServicePortBuilder().withName("http").withProtocol("TCP").withPort(ReplicaPodTemplate.PORT)
                .withTargetPort(new IntOrString("http")).build());
        if (spec.router().kvEvents().isPresent()) {
            // The router finds each replica's publisher by these port names in the EndpointSlices.
            ports.addAll(new KvEventPorts(spec.enginesPerPod()).servicePorts());
        }
        return new ServiceBuilder()
                .withMetadata(metadata(names.replicaService(), names, Labels.REPLICA_COMPONENT))
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(false)
                .withSelector(Labels.selector(names, Labels.REPLICA_COMPONENT))
                .withPorts(ports)
                .endSpec()
                .build();
    }
}
