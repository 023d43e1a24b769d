package io.lmwarden.operator.packaging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.dependent.ReplicaServiceDependent;
import io.lmwarden.operator.dependent.RouterConfigMapDependent;
import io.lmwarden.operator.dependent.RouterDeploymentDependent;
import io.lmwarden.operator.dependent.RouterRoleBindingDependent;
import io.lmwarden.operator.dependent.RouterRoleDependent;
import io.lmwarden.operator.dependent.RouterServiceAccountDependent;
import io.lmwarden.operator.dependent.RouterServiceDependent;
import io.lmwarden.operator.dependent.VllmStatefulSetDependent;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every manifest we ship or make, validated against Kubernetes' OpenAPI schemas (the npm package
 * kubernetes-models, with @kubernetes-models/prometheus-operator for the monitors), ModelDeployments
 * against our CRD's own schema and KEDA ScaledObjects against KEDA's published CRD (unknown fields of a
 * custom resource are errors, as with kubectl's strict field validation): the chart rendered three ways, deploy/operator.yaml, the examples, the
 * CRD itself and the objects the operator makes. Broken manifests prove the check can fail.
 * Needs node and npm (.ci/run installs them); skipped with the reason printed where they are missing.
 */
class KubernetesSchemaTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SOURCES = Path.of("src", "test", "resources", "k8s-schemas");
    private static final Path WORK = Path.of("target", "k8s-schemas");
    /** KEDA's published ScaledObject CRD (the file names its release and commit). */
    private static final Path KEDA_SCALED_OBJECT_CRD = SOURCES.resolve("keda").resolve("keda.sh_scaledobjects.yaml");
    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("ghcr.io/lm-warden/router:0.1.0", "IfNotPresent");

    @BeforeAll
    static void installTheSchemas() throws Exception {
        String why = installed();
        if (why != null) {
            System.out.println("SKIPPED KubernetesSchemaTest: " + why);
            Assumptions.abort(why);
        }
    }

    /** Null when the validator is ready, else why not. */
    private static String installed() throws Exception {
        Files.createDirectories(WORK);
        for (String f : List.of("package.json", "validate.js")) {
            Files.copy(SOURCES.resolve(f), WORK.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        Path stamp = WORK.resolve("node_modules").resolve(".lmw-package.json");
        String wanted = Files.readString(WORK.resolve("package.json"));
        if (Files.exists(stamp) && Files.readString(stamp).equals(wanted)) {
            return null; // installed by an earlier run, from this package.json
        }
        Process npm;
        try {
            npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
                    .directory(WORK.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            return "npm not found (" + e.getMessage() + "); install Debian's nodejs and npm (.ci/run does) to validate the manifests";
        }
        String out = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
            return "npm install of kubernetes-models failed: " + out;
        }
        Files.writeString(stamp, wanted);
        return null;
    }

    @Test
    void everyShippedAndGeneratedManifestMatchesTheKubernetesSchemas() throws Exception {
        Map<String, JsonNode> objects = new LinkedHashMap<>();
        addYaml(objects, "chart defaults", RenderedChart.render("lm-warden", "lmw-system", Map.of()).yaml());
        addYaml(objects, "chart with monitors, PDB, 2 replicas", RenderedChart.render("lm-warden", "lmw-system", Map.of(
                "serviceMonitor.enabled", "true", "operator.podDisruptionBudget.enabled", "true", "operator.replicas", "2")).yaml());
        Path namespaced = Files.createTempFile("lmw-values", ".yaml");
        try {
            Files.writeString(namespaced, """
                    operator:
                      watchNamespaces: [team-a, team-b]
                      allowedImages: ["registry.example/ml/*"]
                    serviceMonitor:
                      enabled: true
                    """);
            addYaml(objects, "chart with watchNamespaces, allowedImages, monitors",
                    RenderedChart.render("lm-warden", "lmw-system", Map.of(), namespaced).yaml());
        } finally {
            Files.delete(namespaced);
        }
        addYaml(objects, "deploy/operator.yaml", RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/operator.yaml")));
        try (Stream<Path> examples = Files.list(RepositoryFiles.root().resolve("deploy/examples"))) {
            for (Path p : examples.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                addYaml(objects, "deploy/examples/" + p.getFileName(), Files.readString(p));
            }
        }
        KubernetesSerialization k8s = new KubernetesSerialization();
        for (ModelDeployment md : List.of(SampleModelDeployments.qwenDp4("llm"), SampleModelDeployments.simulated("llm", 2),
                SampleModelDeployments.tensorParallel("llm"), SampleModelDeployments.isolated("llm"),
                SampleModelDeployments.hostTierAndEvents("llm"), SampleModelDeployments.dataParallelServerWithEvents("llm"),
                SampleModelDeployments.withLora("llm"))) {
            String name = "operator's objects for " + md.getMetadata().getName();
            for (HasMetadata o : List.of(new VllmStatefulSetDependent(DEFAULTS).desired(md), new ReplicaServiceDependent(DEFAULTS).desired(md),
                    new RouterConfigMapDependent(DEFAULTS).desired(md), new RouterDeploymentDependent(DEFAULTS).desired(md),
                    new RouterServiceDependent(DEFAULTS).desired(md), new RouterServiceAccountDependent(DEFAULTS).desired(md),
                    new RouterRoleDependent(DEFAULTS).desired(md), new RouterRoleBindingDependent(DEFAULTS).desired(md),
                    new io.lmwarden.operator.dependent.RouterDisruptionBudgetDependent(DEFAULTS).desired(md),
                    new io.lmwarden.operator.dependent.ReplicaNetworkPolicyDependent(DEFAULTS).desired(md),
                    new io.lmwarden.operator.dependent.RouterNetworkPolicyDependent(DEFAULTS).desired(md),
                    new io.lmwarden.operator.dependent.RouterPeerServiceDependent(DEFAULTS).desired(md))) {
                objects.put(name + ": " + o.getKind(), JSON.readTree(k8s.asJson(o)));
            }
            objects.put(name + ": ModelDeployment", JSON.readTree(k8s.asJson(md)));
        }
        List<JsonNode> results = validate(objects);
        assertThat(results).hasSize(objects.size());
        assertThat(results).filteredOn(r -> !r.path("ok").asBoolean()).as("manifests the Kubernetes schemas reject").isEmpty();
        assertThat(objects.values()).extracting(o -> o.path("kind").asText())
                .contains("Deployment", "ServiceMonitor", "PodMonitor", "PodDisruptionBudget", "CustomResourceDefinition",
                        "ClusterRole", "StatefulSet", "ModelDeployment", "Namespace", "NetworkPolicy", "Role", "RoleBinding",
                        "ScaledObject", "HorizontalPodAutoscaler");
        assertThat(objects.keySet()).as("the namespaced RBAC the chart renders for watchNamespaces is checked")
                .anyMatch(k -> k.startsWith("chart with watchNamespaces") && k.contains(" Role lm-warden"))
                .anyMatch(k -> k.startsWith("chart with watchNamespaces") && k.contains(" RoleBinding lm-warden"));
    }

    @Test
    void brokenManifestsAreRejectedWithWhatIsWrong() throws Exception {
        Map<String, JsonNode> objects = new LinkedHashMap<>();
        addYaml(objects, "boolean annotation, string replicas", """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: broken
                spec:
                  replicas: two
                  selector:
                    matchLabels: {app: broken}
                  template:
                    metadata:
                      labels: {app: broken}
                      annotations:
                        prometheus.io/scrape: true
                    spec:
                      containers:
                        - name: c
                          image: i
                """);
        addYaml(objects, "ModelDeployment without a model, env without a name", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken
                spec:
                  dataParallelSize: 0
                  env:
                    - value: "1"
                """);
        addYaml(objects, "ModelDeployment condition with a status that is no status", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-status
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                status:
                  conditions:
                    - type: Ready
                      status: "yes"
                      reason: AllReplicasReady
                      message: ""
                      lastTransitionTime: "2026-12-01T10:00:00Z"
                """);
        addYaml(objects, "NetworkPolicy with a peer that is no object and a numeric protocol", """
                apiVersion: networking.k8s.io/v1
                kind: NetworkPolicy
                metadata:
                  name: broken
                spec:
                  podSelector: {}
                  policyTypes: [Ingress]
                  ingress:
                    - from: [team-a]
                      ports:
                        - port: 8000
                          protocol: 6
                """);
        addYaml(objects, "Role with a verb list that is a string", """
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata:
                  name: broken
                  namespace: team-a
                rules:
                  - apiGroups: ["networking.k8s.io"]
                    resources: ["networkpolicies"]
                    verbs: get
                """);
        addYaml(objects, "ModelDeployment whose networkPolicy.enabled is a string", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-policy
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                  networkPolicy:
                    enabled: "yes"
                    routerClients: {podSelector: {}}
                    metricsScrapers: [{}]
                  router:
                    adminTokenSecret: {key: admin}
                """);
        List<JsonNode> results = validate(objects);
        assertThat(results).hasSize(6).allSatisfy(r -> assertThat(r.path("ok").asBoolean()).as(r.toString()).isFalse());
        assertBrokenAutoscalingAndNewFieldsAreRejected();
        assertThat(results.get(3).path("error").asText()).contains("from", "protocol");
        assertThat(results.get(4).path("error").asText()).contains("verbs");
        assertThat(results.get(5).path("error").asText()).contains("enabled", "routerClients", "name");
        JsonNode policy = YAML.readTree(RepositoryFiles.crd()).at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/networkPolicy/properties");
        for (String peers : List.of("routerClients", "metricsScrapers")) {
            assertThat(policy.path(peers).path("x-kubernetes-validations").path(0).path("message").asText())
                    .as("the CEL rule the API server applies to an empty %s peer (the validator here does not run CEL)", peers)
                    .isEqualTo("each peer needs a podSelector, a namespaceSelector or an ipBlock");
        }
        assertThat(results.get(0).path("error").asText()).contains("replicas must be integer", "prometheus.io~1scrape must be string");
        assertThat(results.get(1).path("error").asText()).contains("model", "dataParallelSize", "name");
        assertThat(results.get(2).path("error").asText()).contains("status");
    }

    /** The host tier, KV events and rollout fields, and the autoscaling examples' kinds (KEDA's own CRD schema, Kubernetes'
     *  HPA), each broken the way a user might. */
    private void assertBrokenAutoscalingAndNewFieldsAreRejected() throws Exception {
        Map<String, JsonNode> objects = new LinkedHashMap<>();
        addYaml(objects, "ModelDeployment with a fractional size as a number (int-or-string: write \"2.5\"; a zero is the CEL rule's), an unknown backend and hash algorithm", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-tier
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                  kvOffload:
                    sizeGiB: 2.5
                    backend: disk
                  router:
                    kvEvents:
                      enabled: true
                      hashAlgorithm: md5
                """);
        addYaml(objects, "ModelDeployment with a host tier without a size and a misspelt field", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-tier-2
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                  kvOffload:
                    sizeGB: 40
                """);
        addYaml(objects, "ModelDeployment with no replica allowed down and a drain time in words", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-rollout
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                  maxUnavailable: 0
                  drainTimeout: 5 minutes
                  readyTimeout: 30
                  router:
                    shutdownGrace: soon
                """);
        addYaml(objects, "ScaledObject without a target name, a numeric threshold, a trigger without type", """
                apiVersion: keda.sh/v1alpha1
                kind: ScaledObject
                metadata:
                  name: broken
                spec:
                  scaleTargetRef:
                    kind: ModelDeployment
                  triggers:
                    - metadata:
                        query: sum(lmw_queue_length)
                        threshold: 4
                """);
        addYaml(objects, "ScaledObject with a misspelt replica bound", """
                apiVersion: keda.sh/v1alpha1
                kind: ScaledObject
                metadata:
                  name: broken-2
                spec:
                  scaleTargetRef:
                    name: qwen3-4b
                  minReplicas: 2
                  triggers:
                    - type: prometheus
                      metadata:
                        query: sum(lmw_queue_length)
                        threshold: "4"
                """);
        addYaml(objects, "HPA whose external target is no quantity and maxReplicas a string", """
                apiVersion: autoscaling/v2
                kind: HorizontalPodAutoscaler
                metadata:
                  name: broken
                spec:
                  scaleTargetRef:
                    apiVersion: lmwarden.io/v1alpha1
                    kind: ModelDeployment
                    name: qwen3-4b
                  maxReplicas: "8"
                  metrics:
                    - type: External
                      external:
                        metric:
                          name: lmw_queue_length
                        target:
                          type: AverageValue
                          averageValue: four
                """);
        List<JsonNode> results = validate(objects);
        assertThat(results).hasSize(6).allSatisfy(r -> assertThat(r.path("ok").asBoolean()).as(r.toString()).isFalse());
        assertThat(results.get(0).path("error").asText()).contains("kvOffload/sizeGiB", "kvOffload/backend", "kvEvents/hashAlgorithm");
        assertThat(results.get(1).path("error").asText()).contains("sizeGiB", "sizeGB");
        assertThat(results.get(2).path("error").asText()).contains("maxUnavailable", "drainTimeout", "readyTimeout", "shutdownGrace");
        assertThat(results.get(3).path("error").asText()).contains("scaleTargetRef", "name", "threshold", "type");
        assertThat(results.get(4).path("error").asText()).contains("minReplicas");
        assertThat(results.get(5).path("error").asText()).contains("maxReplicas", "averageValue");
    }

    @Test
    void loraAdaptersOutsideWhatVllmTakesAreRejected() throws Exception {
        Map<String, JsonNode> objects = new LinkedHashMap<>();
        addYaml(objects, "LoRA adapters with two sources, with none, a name with '=' and a path leaving the claim", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-lora
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                  lora:
                    adapters:
                      - name: both
                        huggingFace: org/both-lora
                        volume: {claimName: lora-adapters, path: both}
                      - name: none
                      - name: a=b
                        volume: {claimName: lora-adapters, path: ../etc}
                """);
        addYaml(objects, "LoRA limits vLLM refuses: rank 48, no slot, a volume without a claim", """
                apiVersion: lmwarden.io/v1alpha1
                kind: ModelDeployment
                metadata:
                  name: broken-lora-limits
                spec:
                  model: Qwen/Qwen3-4B-Instruct-2507
                  lora:
                    maxLoras: 0
                    maxLoraRank: 48
                    maxCpuLoras: 0
                    adapters:
                      - name: team
                        volume: {path: team}
                """);
        List<JsonNode> results = validate(objects);
        assertThat(results).hasSize(2).allSatisfy(r -> assertThat(r.path("ok").asBoolean()).as(r.toString()).isFalse());
        assertThat(results.get(0).path("error").asText()).contains("adapters/0 must match exactly one schema in oneOf",
                "adapters/1 must match exactly one schema in oneOf", "adapters/2/name must match pattern", "adapters/2/volume/path must match pattern");
        assertThat(results.get(1).path("error").asText()).contains("lora/maxLoras must be >= 1", "lora/maxLoraRank must be equal to one of the allowed values",
                "lora/maxCpuLoras must be >= 1", "volume must have required property 'claimName'");
        JsonNode lora = YAML.readTree(RepositoryFiles.crd()).at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/lora");
        assertThat(lora.path("properties").path("adapters").path("x-kubernetes-list-type").asText())
                .as("a repeated adapter name is refused by the API server (a list-map; the validator here does not check it)").isEqualTo("map");
        assertThat(lora.path("x-kubernetes-validations").path(0).path("rule").asText()).as("CEL, which the validator here does not run")
                .contains("self.maxCpuLoras >= ");

        Map<String, JsonNode> good = new LinkedHashMap<>();
        addYaml(good, "deploy/examples/qwen3-4b-lora.yaml", RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples/qwen3-4b-lora.yaml")));
        assertThat(validate(good)).singleElement().satisfies(r -> assertThat(r.path("ok").asBoolean()).as(r.toString()).isTrue());
    }

    private static void addYaml(Map<String, JsonNode> objects, String source, String yaml) throws IOException {
        int i = 0;
        for (String doc : yaml.split("(?m)^---\\s*$")) {
            JsonNode n = YAML.readTree(doc);
            if (n != null && n.has("kind")) {
                objects.put(source + " #" + (i++) + " " + n.path("kind").asText() + " " + n.path("metadata").path("name").asText(), n);
            }
        }
    }

    private static List<JsonNode> validate(Map<String, JsonNode> objects) throws Exception {
        ObjectNode input = JSON.createObjectNode();
        ArrayNode list = input.putArray("objects");
        objects.forEach((name, o) -> list.addObject().put("name", name).set("object", o));
        input.putArray("crds").add(YAML.readTree(RepositoryFiles.crd())).add(YAML.readTree(Files.readString(KEDA_SCALED_OBJECT_CRD)));
        Process node = new ProcessBuilder("node", "validate.js").directory(WORK.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (var in = node.getOutputStream()) {
            in.write(JSON.writeValueAsBytes(input));
        }
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(node.exitValue()).as(out).isZero();
        List<JsonNode> results = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                results.add(JSON.readTree(line));
            }
        }
        return results;
    }
}
