package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/** ConfigMap {@code <name>-router} holding the router's router.yaml. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterConfigMapDependent extends ModelDeploymentDependent<ConfigMap> {

    public RouterConfigMapDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterConfigMapDependent(OperatorDefaults defaults) {
        super(ConfigMap.class, defaults);
    }

    @Override
    public ConfigMap desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        RouterSettings settings = new RouterSettings(effective(md), names);
        return new ConfigMapBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .addToData(RouterSettings.CONFIG_FILE, settings.configYaml())
                .build();
    }
}
