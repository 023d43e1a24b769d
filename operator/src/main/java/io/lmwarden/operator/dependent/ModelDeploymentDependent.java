package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * One Kubernetes object made for a ModelDeployment. Subclasses implement {@link #desired(ModelDeployment)}
 * as a pure function of the ModelDeployment and the operator defaults, which unit tests call directly.
 * Objects are garbage-collected through the owner reference JOSDK adds on create and update.
 */
public abstract class ModelDeploymentDependent<R extends HasMetadata>
        extends CRUDKubernetesDependentResource<R, ModelDeployment> {

    private final OperatorDefaults defaults;

    protected ModelDeploymentDependent(Class<R> type, OperatorDefaults defaults) {
        super(type);
        this.defaults = defaults;
    }

    /** The object as it should be for this ModelDeployment. */
    public abstract R desired(ModelDeployment md);

    @Override
    public R desired(ModelDeployment md, Context<ModelDeployment> context) {
        return desired(md);
    }

    /** JOSDK adds a plain owner reference; marking it as the controller makes {@code kubectl describe}
     *  show "Controlled By" and lets the garbage collector block the owner's foreground deletion. */
    @Override
    protected void addReferenceHandlingMetadata(R target, ModelDeployment primary) {
        super.addReferenceHandlingMetadata(target, primary);
        target.getMetadata().getOwnerReferences().stream()
                .filter(ref -> ref.getUid() != null && ref.getUid().equals(primary.getMetadata().getUid()))
                .forEach(ref -> {
                    ref.setController(true);
                    ref.setBlockOwnerDeletion(true);
                });
    }

    protected OperatorDefaults defaults() {
        return defaults;
    }

    protected EffectiveSpec effective(ModelDeployment md) {
        return EffectiveSpec.of(md.getSpec(), defaults);
    }

    protected static ObjectMeta metadata(String name, ResourceNames names, String component) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(names.namespace())
                .withLabels(Labels.of(names, component))
                .build();
    }
}
