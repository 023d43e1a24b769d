package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/** The router's own identity, bound to the EndpointSlice-reading Role and nothing else. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterServiceAccountDependent extends ModelDeploymentDependent<ServiceAccount> {

    public RouterServiceAccountDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterServiceAccountDependent(OperatorDefaults defaults) {
        super(ServiceAccount.class, defaults);
    }

    @Override
    public ServiceAccount desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new ServiceAccountBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .build();
    }
}
