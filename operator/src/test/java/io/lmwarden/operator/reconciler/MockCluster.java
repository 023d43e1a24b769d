package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.runtime.LmWardenOperator;
import io.lmwarden.operator.runtime.OperatorSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What the reconciliation tests do on fabric8's CRUD mock API server: install the generated CRD, run the operator as it
 *  ships, patch and read ModelDeployments, their conditions and Events. */
final class MockCluster {
    static final String ROUTER_IMAGE = "example.org/lmw/router:test";

    private final KubernetesClient client;
    private final String namespace;

    MockCluster(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    static Path generatedCrd() {
        return Path.of(System.getProperty("lmw.generated.crds", "target/generated-crds"), "modeldeployments.lmwarden.io-v1.yml");
    }

    /** Installs the CRD the build generated and starts the operator watching all namespaces. */
    Operator startOperator() throws IOException {
        try (InputStream crd = new FileInputStream(generatedCrd().toFile())) {
            client.resource(client.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class)).create();
        }
        OperatorSettings settings = new OperatorSettings(Set.of(), new OperatorDefaults(ROUTER_IMAGE, "IfNotPresent"), Optional.empty());
        Operator operator = LmWardenOperator.create(client, settings, new SimpleMeterRegistry());
        operator.start();
        return operator;
    }

    ModelDeployment get(String name) {
        return client.resources(ModelDeployment.class).inNamespace(namespace).withName(name).get();
    }

    /** Like `kubectl patch --type merge`: no resourceVersion, so it cannot conflict with the operator's status writes. */
    void patchSpec(String name, String mergePatch) {
        client.resources(ModelDeployment.class).inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
    }

    /** A JSON patch: the mock server's merge patch appends to lists instead of replacing them. */
    void jsonPatch(String name, String patch) {
        client.resources(ModelDeployment.class).inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON), patch);
    }

    Optional<io.fabric8.kubernetes.api.model.Condition> condition(String name, String type) {
        return condition(get(name), type);
    }

    /** One condition of a ModelDeployment as read once, so that several conditions can be checked on the same status. */
    static Optional<io.fabric8.kubernetes.api.model.Condition> condition(ModelDeployment md, String type) {
        if (md == null || md.getStatus() == null) {
            return Optional.empty();
        }
        return md.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst();
    }

    /** Status of one condition, or null when there is none yet. */
    String conditionStatus(String name, String type) {
        return condition(name, type).map(io.fabric8.kubernetes.api.model.Condition::getStatus).orElse(null);
    }

    List<Event> eventsOf(String name) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName())).toList();
    }

    /** What the Deployment controller would report for a router Deployment whose pods are all Ready. */
    void routerReady(String deployment) {
        Deployment router = client.apps().deployments().inNamespace(namespace).withName(deployment).get();
        int replicas = router.getSpec().getReplicas();
        router.setStatus(new DeploymentStatusBuilder().withObservedGeneration(router.getMetadata().getGeneration())
                .withReplicas(replicas).withUpdatedReplicas(replicas).withReadyReplicas(replicas).withAvailableReplicas(replicas).build());
        client.resource(router).updateStatus();
    }
}
