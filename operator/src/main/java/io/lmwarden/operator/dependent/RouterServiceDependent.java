package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/** ClusterIP Service {@code <name>}, port 80 to the router's 8000: the address agents use. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterServiceDependent extends ModelDeploymentDependent<Service> {
    public static final int PORT = 80;

    public RouterServiceDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterServiceDependent(OperatorDefaults defaults) {
        super(Service.class, defaults);
    }

    @Override
    public Service desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new ServiceBuilder()
                .withMetadata(metadata(names.routerService(), names, Labels.ROUTER_COMPONENT))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Labels.selector(names, Labels.ROUTER_COMPONENT))
                .addNewPort()
                .withName("http").withProtocol("TCP").withPort(PORT)
                .withTargetPort(new IntOrString("http"))
                .endPort()
                .endSpec()
                .build();
    }
}
