package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/** Binds the router's Role to the router's ServiceAccount. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterRoleBindingDependent extends ModelDeploymentDependent<RoleBinding> {

    public RouterRoleBindingDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterRoleBindingDependent(OperatorDefaults defaults) {
        super(RoleBinding.class, defaults);
    }

    @Override
    public RoleBinding desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new RoleBindingBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io").withKind("Role").withName(names.router())
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount").withName(names.router()).withNamespace(names.namespace())
                .endSubject()
                .build();
    }
}
