package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.javaoperatorsdk.operator.Operator;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.packaging.RenderedChart;
import io.lmwarden.operator.runtime.LmWardenOperator;
import io.lmwarden.operator.runtime.OperatorSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator as the chart runs it with {@code operator.watchNamespaces: [team-a]} and
 * {@code operator.allowedImages}, against fabric8's CRUD mock API server. The mock server does not
 * enforce RBAC, so the test does: every request the operator sends (told apart by its User-Agent) is
 * checked against the Role the chart renders for team-a, the way the API server's authorizer would.
 */
@EnableKubernetesMockClient(https = false, crud = true, kubernetesClientBuilderCustomizer = PatientMockClient.class)
class NamespacedOperatorTest {
    private static final String WATCHED = "team-a";
    private static final String OTHER = "team-b";
    private static final String USER_AGENT = "lmw-operator-under-test";
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    KubernetesClient client;
    KubernetesMockServer server;
    private KubernetesClient operatorClient;
    private Operator operator;

    @BeforeEach
    void startOperator() throws IOException {
        try (InputStream crd = new FileInputStream(MockCluster.generatedCrd().toFile())) {
            client.resource(client.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class)).create();
        }
        operatorClient = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(client.getConfiguration()).withUserAgent(USER_AGENT).build()).build();
        OperatorSettings settings = new OperatorSettings(Set.of(WATCHED), new OperatorDefaults("registry.example/lmw/router:1", "IfNotPresent"),
                Optional.empty(), ImageAllowList.parse("registry.example/ml/*"));
        operator = LmWardenOperator.create(operatorClient, settings, new SimpleMeterRegistry());
        operator.start();
    }

    @AfterEach
    void stopOperator() {
        operator.stop();
        operatorClient.close();
    }

    @Test
    void everyRequestOfTheOperatorIsAllowedByTheChartsRoleInTheWatchedNamespace(@TempDir Path dir) throws Exception {
        Path values = Files.writeString(dir.resolve("values.yaml"), "operator:\n  watchNamespaces: [" + WATCHED + "]\n");
        RenderedChart chart = RenderedChart.render("lm-warden", "lmw-system", Map.of(), values);
        Role role = chart.all(Role.class).stream().filter(r -> WATCHED.equals(r.getMetadata().getNamespace())).findFirst().orElseThrow();
        assertThat(chart.all(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class)).as("only the node reader, for kvOffload auto")
                .singleElement().satisfies(c -> assertThat(c.getMetadata().getName()).endsWith("-node-reader"));

        ModelDeployment md = allowedImage(SampleModelDeployments.isolated(WATCHED));
        client.resource(md).create();
        client.resource(allowedImage(SampleModelDeployments.simulated(OTHER, 2))).create();
        Eventually.await("the NetworkPolicies in " + WATCHED, TIMEOUT,
                () -> client.network().networkPolicies().inNamespace(WATCHED).list().getItems().size() == 2);
        Eventually.await("status", TIMEOUT, () -> get(WATCHED, md.getMetadata().getName()).getStatus() != null);
        // Exercise the delete path too: NetworkPolicies are the one kind the operator deletes.
        client.resources(ModelDeployment.class).inNamespace(WATCHED).withName(md.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"networkPolicy\":{\"enabled\":false}}}");
        Eventually.await("NetworkPolicies removed", TIMEOUT,
                () -> client.network().networkPolicies().inNamespace(WATCHED).list().getItems().isEmpty());

        assertThat(client.apps().statefulSets().inNamespace(OTHER).list().getItems()).as("team-b is not watched").isEmpty();
        assertThat(get(OTHER, "sim").getStatus()).isNull();

        List<String> requests = operatorRequests();
        assertThat(requests).as("requests seen from the operator").hasSizeGreaterThan(10)
                .anyMatch(r -> r.startsWith("POST ") && r.contains("/statefulsets"))
                .anyMatch(r -> r.startsWith("DELETE ") && r.contains("/networkpolicies/"))
                .anyMatch(r -> r.contains("watch=true"));
        List<String> denied = new ArrayList<>();
        for (String request : requests) {
            Optional<String> why = deniedBy(role.getRules(), request);
            why.ifPresent(w -> denied.add(request + ": " + w));
        }
        assertThat(denied).as("requests the namespaced Role would refuse").isEmpty();
    }

    @Test
    void anImageOffTheAllowListIsDegradedInvalidSpecWithAnEventAndNothingIsMade() {
        ModelDeployment md = SampleModelDeployments.qwenDp4(WATCHED); // vllm/vllm-openai:v0.26.0 by default
        client.resource(md).create();

        Eventually.await("Degraded=True", TIMEOUT, () -> "True".equals(condition(get(WATCHED, "qwen3-4b"), "Degraded")));
        var degraded = get(WATCHED, "qwen3-4b").getStatus().getConditions().stream()
                .filter(c -> c.getType().equals("Degraded")).findFirst().orElseThrow();
        assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
        assertThat(degraded.getMessage()).contains("spec.image 'vllm/vllm-openai:v0.26.0' is not allowed", "registry.example/ml/*");
        Eventually.await("a Warning event", TIMEOUT, () -> client.v1().events().inNamespace(WATCHED).list().getItems().stream()
                .anyMatch(e -> e.getReason().equals("InvalidSpec") && e.getType().equals("Warning")
                        && e.getMessage().contains("allow-list")));
        assertThat(new OwnerReferenceGarbageCollector(client).ownedKinds(WATCHED)).as("nothing made for a refused image").isEmpty();

        client.resources(ModelDeployment.class).inNamespace(WATCHED).withName("qwen3-4b")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"image\":\"registry.example/ml/vllm:v0.11.0\"}}");
        Eventually.await("the StatefulSet once the image is allowed", TIMEOUT,
                () -> client.apps().statefulSets().inNamespace(WATCHED).withName("qwen3-4b-vllm").get() != null);
        assertThat(client.apps().statefulSets().inNamespace(WATCHED).withName("qwen3-4b-vllm").get()
                .getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("registry.example/ml/vllm:v0.11.0");
        Eventually.await("Degraded=False", TIMEOUT, () -> "False".equals(condition(get(WATCHED, "qwen3-4b"), "Degraded")));
    }

    private static ModelDeployment allowedImage(ModelDeployment md) {
        md.getSpec().setImage("registry.example/ml/vllm:v0.11.0");
        return md;
    }

    /** "METHOD path?query" of every request the operator's client sent so far. */
    private List<String> operatorRequests() throws InterruptedException {
        List<String> requests = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            if (USER_AGENT.equals(r.getHeader("User-Agent"))) {
                requests.add(r.getMethod() + " " + r.getPath());
            }
        }
        return requests;
    }

    private static final Pattern NAMESPACED = Pattern.compile(
            "^/(?:api/v1|apis/(?<group>[^/]+)/[^/]+)/namespaces/(?<ns>[^/]+)/(?<resource>[^/]+)(?:/(?<name>[^/]+)(?:/(?<sub>[^/]+))?)?$");

    /** Why Kubernetes' RBAC authorizer would refuse this request with only these namespaced rules; empty if it allows it. */
    private static Optional<String> deniedBy(List<PolicyRule> rules, String request) {
        String method = request.substring(0, request.indexOf(' '));
        URI uri = URI.create(request.substring(method.length() + 1));
        Matcher m = NAMESPACED.matcher(uri.getPath());
        if (!m.matches()) {
            return Optional.of("not a namespaced resource: a Role cannot allow it");
        }
        if (!WATCHED.equals(m.group("ns"))) {
            return Optional.of("outside the watched namespace");
        }
        String group = m.group("group") == null ? "" : m.group("group");
        String resource = m.group("resource") + (m.group("sub") == null ? "" : "/" + m.group("sub"));
        boolean named = m.group("name") != null;
        String query = uri.getQuery() == null ? "" : uri.getQuery();
        String verb = switch (method) {
            case "GET" -> query.contains("watch=true") ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> method.toLowerCase();
        };
        boolean allowed = rules.stream().anyMatch(rule -> rule.getApiGroups().contains(group)
                && rule.getResources().contains(resource) && rule.getVerbs().contains(verb));
        return allowed ? Optional.empty() : Optional.of("no rule allows " + verb + " " + (group.isEmpty() ? "core" : group) + "/" + resource);
    }

    private ModelDeployment get(String namespace, String name) {
        return client.resources(ModelDeployment.class).inNamespace(namespace).withName(name).get();
    }

    private static String condition(ModelDeployment md, String type) {
        if (md == null || md.getStatus() == null) {
            return null;
        }
        return md.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst()
                .map(c -> c.getStatus()).orElse(null);
    }
}
