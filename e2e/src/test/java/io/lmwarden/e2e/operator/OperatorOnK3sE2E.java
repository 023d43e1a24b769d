package io.lmwarden.e2e.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator as users install it, on a real Kubernetes (K3s in Docker): both images are built
 * from deploy/docker/*.Dockerfile, imported into K3s, deploy/operator.yaml is applied (the CRD, RBAC
 * and operator Deployment that `kubectl apply -f deploy/` installs), then deploy/examples/simulated.yaml
 * with two replicas. The test waits for Ready, sends a chat completion through the router Service
 * (via the API server's service proxy), changes the pod template and waits for the operator's rolling update
 * to replace both replicas through the real StatefulSet controller, and deletes the ModelDeployment to see the real garbage
 * collector remove what the operator made.
 *
 * <p>Needs Docker and the built jars (operator/target/lmw-operator.jar, router/target/lmw-router.jar,
 * sim/target/lmw-sim.jar); without them it is skipped with the reason printed. The K3s image can be
 * changed with -Dlmw.k3s.image.
 */
class OperatorOnK3sE2E {
    private static final String K3S_IMAGE = System.getProperty("lmw.k3s.image", "rancher/k3s:v1.31.5-k3s1");
    private static final String OPERATOR_IMAGE = "ghcr.io/lm-warden/operator:e2e";
    private static final String ROUTER_IMAGE = "ghcr.io/lm-warden/router:e2e";
    private static final String OPERATOR_NAMESPACE = "lm-warden";
    private static final String NAMESPACE = "default";
    private static final String MD_NAME = "qwen3-4b-sim";
    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void simulatedModelDeploymentServesChatThroughTheRouterService() throws Exception {
        Path root = Path.of(System.getProperty("lmw.repo.root", "..")).toAbsolutePath().normalize();
        Path operatorJar = root.resolve("operator/target/lmw-operator.jar");
        Path routerJar = Path.of(System.getProperty("lmw.router.jar", root.resolve("router/target/lmw-router.jar").toString()));
        Path simJar = Path.of(System.getProperty("lmw.sim.jar", root.resolve("sim/target/lmw-sim.jar").toString()));
        skipUnless(DockerClientFactory.instance().isDockerAvailable(), "Docker is not available");
        for (Path jar : List.of(operatorJar, routerJar, simJar)) {
            skipUnless(Files.isRegularFile(jar), jar + " is missing; build it with mvn -B -pl operator,router,sim -am package");
        }

        String operatorImage = buildImage(OPERATOR_IMAGE, root.resolve("deploy/docker/operator.Dockerfile"),
                Map.of("operator/target/lmw-operator.jar", operatorJar));
        String routerImage = buildImage(ROUTER_IMAGE, root.resolve("deploy/docker/router.Dockerfile"),
                Map.of("router/target/lmw-router.jar", routerJar, "sim/target/lmw-sim.jar", simJar));

        try (K3sContainer k3s = new K3sContainer(DockerImageName.parse(K3S_IMAGE))) {
            k3s.start();
            importImage(k3s, operatorImage);
            importImage(k3s, routerImage);
            Config config = Config.fromKubeconfig(k3s.getKubeConfigYaml());
            try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
                installOperator(client, root.resolve("deploy/operator.yaml"), operatorImage, routerImage);
                createSimulatedModelDeployment(client, root.resolve("deploy/examples/simulated.yaml"));

                Resource<GenericKubernetesResource> md = modelDeployments(client).withName(MD_NAME);
                await("ModelDeployment Ready", Duration.ofMinutes(6), () -> "True".equals(condition(md.get(), "Ready")),
                        () -> diagnostics(client, md.get()));
                Map<String, Object> status = status(md.get());
                assertThat(status.get("readyReplicas")).isEqualTo(2);
                assertThat(status.get("routerReady")).isEqualTo(true);
                assertThat(status.get("endpoint")).isEqualTo("http://" + MD_NAME + "." + NAMESPACE + ".svc");

                JsonNode completion = chatThroughRouterService(client);
                assertThat(completion.path("choices").path(0).path("message").path("content").asText()).isNotBlank();
                assertThat(completion.path("model").asText()).isEqualTo(MODEL);

                rollingUpdateReplacesBothReplicasOneByOne(client, md);
                assertThat(chatThroughRouterService(client).path("model").asText()).as("served after the rollout").isEqualTo(MODEL);

                md.delete();
                await("garbage collection of the replicas' StatefulSet", Duration.ofMinutes(2),
                        () -> client.apps().statefulSets().inNamespace(NAMESPACE).withName(MD_NAME + "-vllm").get() == null,
                        () -> "StatefulSet still present");
                await("garbage collection of the router Service", Duration.ofMinutes(1),
                        () -> client.services().inNamespace(NAMESPACE).withName(MD_NAME).get() == null,
                        () -> "Service still present");
            }
        }
    }

    /** The real StatefulSet controller with OnDelete: a pod template change replaces both replicas through the operator,
     *  each drained by its preStop, and the ModelDeployment says when it is done. */
    private static void rollingUpdateReplacesBothReplicasOneByOne(KubernetesClient client, Resource<GenericKubernetesResource> md)
            throws InterruptedException {
        Map<String, String> before = new LinkedHashMap<>();
        client.pods().inNamespace(NAMESPACE).withLabel("app.kubernetes.io/component", "replica").list().getItems()
                .forEach(p -> before.put(p.getMetadata().getName(), p.getMetadata().getUid()));
        assertThat(before).hasSize(2);
        md.patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                "{\"spec\":{\"env\":[{\"name\":\"LMW_E2E_REVISION\",\"value\":\"2\"}]}}");
        await("both replicas replaced and Ready", Duration.ofMinutes(8), () -> {
            Map<String, Object> status = status(md.get());
            var pods = client.pods().inNamespace(NAMESPACE).withLabel("app.kubernetes.io/component", "replica").list().getItems();
            return Integer.valueOf(2).equals(status.get("updatedReplicas")) && "True".equals(condition(md.get(), "Ready"))
                    && pods.size() == 2 && pods.stream().noneMatch(p -> before.containsValue(p.getMetadata().getUid()));
        }, () -> diagnostics(client, md.get()));
        assertThat(condition(md.get(), "Degraded")).isEqualTo("False");
        List<String> replaced = client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                .filter(e -> "RollingUpdate".equals(e.getReason()) && e.getMessage().startsWith("replacing "))
                .sorted(java.util.Comparator.comparing(io.fabric8.kubernetes.api.model.Event::getFirstTimestamp))
                .map(e -> e.getMessage().split(" ")[1]).toList();
        assertThat(replaced).as("one Event per replaced replica, highest ordinal first")
                .containsExactly(MD_NAME + "-vllm-1", MD_NAME + "-vllm-0");
    }

    private static void skipUnless(boolean condition, String reason) {
        if (!condition) {
            System.out.println("SKIPPED OperatorOnK3sE2E: " + reason);
        }
        Assumptions.assumeTrue(condition, reason);
    }

    private static String buildImage(String name, Path dockerfile, Map<String, Path> files) {
        ImageFromDockerfile image = new ImageFromDockerfile(name, true).withFileFromPath("Dockerfile", dockerfile);
        files.forEach(image::withFileFromPath);
        return image.get();
    }

    /** K3s runs its own containerd, so images built by the host's Docker are saved and imported. */
    private static void importImage(K3sContainer k3s, String image) throws IOException, InterruptedException {
        Path tar = Files.createTempFile("lmw-image", ".tar");
        try {
            try (InputStream saved = DockerClientFactory.instance().client().saveImageCmd(image).exec()) {
                Files.copy(saved, tar, StandardCopyOption.REPLACE_EXISTING);
            }
            k3s.copyFileToContainer(MountableFile.forHostPath(tar), "/tmp/image.tar");
            ExecResult result = k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/image.tar");
            assertThat(result.getExitCode()).as("ctr images import " + image + ": " + result.getStderr()).isZero();
        } finally {
            Files.deleteIfExists(tar);
        }
    }

    /** Applies deploy/operator.yaml as shipped, pointing the operator at the images built here. */
    private static void installOperator(KubernetesClient client, Path manifest, String operatorImage, String routerImage)
            throws IOException {
        List<HasMetadata> objects;
        try (InputStream in = Files.newInputStream(manifest)) {
            objects = client.load(in).items();
        }
        for (HasMetadata object : objects) {
            if (object instanceof Deployment deployment) {
                var container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
                container.setImage(operatorImage);
                container.setImagePullPolicy("Never");
                setEnv(container.getEnv(), "LMW_ROUTER_IMAGE", routerImage);
                setEnv(container.getEnv(), "LMW_ROUTER_IMAGE_PULL_POLICY", "Never");
            }
        }
        client.resourceList(objects).serverSideApply();
        client.apiextensions().v1().customResourceDefinitions().withName("modeldeployments.lmwarden.io")
                .waitUntilCondition(crd -> crd != null && crd.getStatus() != null && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus())), 1, TimeUnit.MINUTES);
        client.apps().deployments().inNamespace(OPERATOR_NAMESPACE).withName("lm-warden").waitUntilReady(4, TimeUnit.MINUTES);
    }

    private static void setEnv(List<EnvVar> env, String name, String value) {
        env.removeIf(e -> e.getName().equals(name));
        env.add(new EnvVar(name, value, null));
    }

    @SuppressWarnings("unchecked")
    private static void createSimulatedModelDeployment(KubernetesClient client, Path example) throws IOException {
        GenericKubernetesResource md;
        try (InputStream in = Files.newInputStream(example)) {
            md = (GenericKubernetesResource) client.load(in).items().get(0);
        }
        // Two replicas keep the test light; the example's four work the same way.
        ((Map<String, Object>) md.getAdditionalProperties().get("spec")).put("dataParallelSize", 2);
        md.getMetadata().setNamespace(NAMESPACE);
        assertThat(md.getMetadata().getName()).isEqualTo(MD_NAME);
        client.resource(md).create();
    }

    private static JsonNode chatThroughRouterService(KubernetesClient client) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", MODEL);
        body.put("messages", List.of(Map.of("role", "user", "content", "Say hello to the operator test.")));
        body.put("max_tokens", 16);
        String url = client.getMasterUrl().toString().replaceAll("/$", "")
                + "/api/v1/namespaces/" + NAMESPACE + "/services/" + MD_NAME + ":80/proxy/v1/chat/completions";
        HttpRequest request = client.getHttpClient().newHttpRequestBuilder()
                .uri(url)
                .header("X-Session-Id", "operator-e2e")
                .post("application/json", JSON.writeValueAsString(body))
                .build();
        HttpResponse<String> response = client.getHttpClient().sendAsync(request, String.class).get(60, TimeUnit.SECONDS);
        assertThat(response.code()).as("chat completion through the router Service: " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<GenericKubernetesResource,
            io.fabric8.kubernetes.api.model.GenericKubernetesResourceList, Resource<GenericKubernetesResource>> modelDeployments(
            KubernetesClient client) {
        return client.genericKubernetesResources("lmwarden.io/v1alpha1", "ModelDeployment").inNamespace(NAMESPACE);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status(GenericKubernetesResource md) {
        Object status = md == null ? null : md.getAdditionalProperties().get("status");
        return status instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static String condition(GenericKubernetesResource md, String type) {
        Object conditions = status(md).get("conditions");
        if (!(conditions instanceof List<?> list)) {
            return null;
        }
        return list.stream().map(c -> (Map<String, Object>) c).filter(c -> type.equals(c.get("type")))
                .map(c -> String.valueOf(c.get("status"))).findFirst().orElse(null);
    }

    private static String diagnostics(KubernetesClient client, GenericKubernetesResource md) {
        StringBuilder out = new StringBuilder("status: ").append(status(md)).append('\n');
        client.pods().inNamespace(NAMESPACE).list().getItems().forEach(pod -> out.append("pod ")
                .append(pod.getMetadata().getName()).append(": ").append(pod.getStatus().getPhase())
                .append(' ').append(pod.getStatus().getContainerStatuses()).append('\n'));
        try {
            out.append("operator log tail:\n").append(client.apps().deployments().inNamespace(OPERATOR_NAMESPACE)
                    .withName("lm-warden").tailingLines(40).getLog());
        } catch (RuntimeException e) {
            out.append("operator log unavailable: ").append(e.getMessage());
        }
        return out.toString();
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition,
                              java.util.function.Supplier<String> diagnostics) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(1000);
        }
        throw new AssertionError("timed out after " + timeout + " waiting for " + what + "\n" + diagnostics.get());
    }
}
