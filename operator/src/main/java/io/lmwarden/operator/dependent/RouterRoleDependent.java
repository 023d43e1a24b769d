package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/** Read-only access to EndpointSlices in the ModelDeployment's namespace: all the router needs
 *  to learn which replica pods are ready. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterRoleDependent extends ModelDeploymentDependent<Role> {

    public RouterRoleDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterRoleDependent(OperatorDefaults defaults) {
        super(Role.class, defaults);
    }

    @Override
    public Role desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new RoleBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .withRules(new PolicyRuleBuilder()
                        .withApiGroups("discovery.k8s.io")
                        .withResources("endpointslices")
                        .withVerbs("get", "list", "watch")
                        .build())
                .build();
    }
}
