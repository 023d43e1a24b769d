package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.lmwarden.operator.model.ModelDeployment;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One Kubernetes object made for a ModelDeployment. Subclasses implement {@link #desired(ModelDeployment)}
 * as a pure function of the ModelDeployment and the operator defaults, which unit tests call directly.
 * Objects are garbage-collected through the owner reference JOSDK adds on create and update.
 *
 * <p>What the operator writes carries {@value #DESIRED_HASH_ANNOTATION}, a hash of the rest of the desired
 * object. JOSDK's matcher (without server-side apply) ignores whatever the actual object has in addition to the
 * desired one, so that API-server defaults cause no updates; by the same rule it would never notice that
 * something was taken away (an extra argument, an environment variable, the KV event ports). A changed hash is
 * a changed annotation value, which it does notice.
 */
public abstract class ModelDeploymentDependent<R extends HasMetadata>
        extends CRUDKubernetesDependentResource<R, ModelDeployment> {
    public static final String DESIRED_HASH_ANNOTATION = "lmwarden.io/desired-hash";

    private final OperatorDefaults defaults;

    protected ModelDeploymentDependent(Class<R> type, OperatorDefaults defaults) {
        super(type);
        this.defaults = defaults;
    }

    /** The object as it should be for this ModelDeployment. */
    public abstract R desired(ModelDeployment md);

    /** The object as it should be with what the reconciler learned of the nodes; only the replicas' StatefulSet uses it. */
    protected R desired(ModelDeployment md, NodeInventory nodes) {
        return desired(md);
    }

    @Override
    public R desired(ModelDeployment md, Context<ModelDeployment> context) {
        NodeInventory nodes = context.managedWorkflowAndDependentResourceContext()
                .get(NodeInventory.CONTEXT_KEY, NodeInventory.class).orElse(NodeInventory.NOT_READ);
        R desired = desired(md, nodes);
        String hash = DesiredHash.of(context.getClient().getKubernetesSerialization().convertValue(desired, JsonNode.class));
        Map<String, String> annotations = new LinkedHashMap<>(Optional.ofNullable(desired.getMetadata().getAnnotations()).orElse(Map.of()));
        annotations.put(DESIRED_HASH_ANNOTATION, hash);
        desired.getMetadata().setAnnotations(annotations);
        return desired;
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
