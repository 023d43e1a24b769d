package io.lmwarden.operator.model;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A vLLM model served by one replica per data-parallel rank behind an LM Warden router.
 * The CRD under {@code crds/} is generated from this class and the classes it refers to.
 */
@Group(ModelDeployment.GROUP)
@Version(ModelDeployment.VERSION)
@Kind("ModelDeployment")
@Plural("modeldeployments")
@Singular("modeldeployment")
@ShortNames("md")
@Categories("lm-warden")
@AdditionalPrinterColumn(name = "Model", jsonPath = ".spec.model", type = AdditionalPrinterColumn.Type.STRING, priority = 0)
@AdditionalPrinterColumn(name = "DP", jsonPath = ".spec.dataParallelSize", type = AdditionalPrinterColumn.Type.INTEGER, priority = 0)
@AdditionalPrinterColumn(name = "TP", jsonPath = ".spec.tensorParallelSize", type = AdditionalPrinterColumn.Type.INTEGER, priority = 0)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.ready", type = AdditionalPrinterColumn.Type.STRING, priority = 0,
        getDescription = "Ready replica pods / dataParallelSize")
@AdditionalPrinterColumn(name = "Endpoint", jsonPath = ".status.endpoint", type = AdditionalPrinterColumn.Type.STRING, priority = 0)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE, priority = 0)
@AdditionalPrinterColumn(name = "Status", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING,
        priority = 1, getDescription = "Reason of the Ready condition (kubectl get md -o wide)")
public class ModelDeployment extends CustomResource<ModelDeploymentSpec, ModelDeploymentStatus> implements Namespaced {
    public static final String GROUP = "lmwarden.io";
    public static final String VERSION = "v1alpha1";
}
