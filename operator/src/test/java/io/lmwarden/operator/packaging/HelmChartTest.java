package io.lmwarden.operator.packaging;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.dependent.RouterRoleDependent;
import io.lmwarden.operator.reconciler.ModelDeploymentReconciler;
import io.lmwarden.operator.SampleModelDeployments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HelmChartTest {
    private static final String NAMESPACE = "lmw-system";

    @Test
    void chartPassesStrictLint() {
        LintResult result = new Helm(RepositoryFiles.chart()).lint().strict().call();
        assertThat(result.isFailed()).as("helm lint: " + result.getMessages()).isFalse();
    }

    @Test
    void defaultsRenderAnOperatorWithItsOwnServiceAccountProbesAndHardening() {
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of());
        Deployment deployment = chart.one(Deployment.class);
        ServiceAccount serviceAccount = chart.one(ServiceAccount.class);
        Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);

        assertThat(deployment.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
        assertThat(operator.getImage()).isEqualTo("ghcr.io/lm-warden/operator:0.1.0");
        assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo(serviceAccount.getMetadata().getName());
        assertThat(env(operator, OperatorDefaults.ROUTER_IMAGE_ENV)).isEqualTo("ghcr.io/lm-warden/router:0.1.0");
        assertThat(env(operator, "LMW_WATCH_NAMESPACES")).isEmpty();
        assertThat(operator.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("POD_NAMESPACE");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        });
        assertThat(operator.getArgs()).contains("--leader-election=true", "--http-port=8080");
        assertThat(deployment.getSpec().getTemplate().getSpec().getEnableServiceLinks()).isFalse();
        assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(operator.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(operator.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(deployment.getSpec().getSelector().getMatchLabels().entrySet())
                .isSubsetOf(deployment.getSpec().getTemplate().getMetadata().getLabels().entrySet());
    }

    @Test
    void clusterRoleCoversEveryKindTheOperatorOwnsAndNothingMore() throws Exception {
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of());
        ClusterRole role = operatorRole(chart);
        List<PolicyRule> rules = role.getRules();
        assertCoversTheOperatorAndNothingMore(rules);
        assertThat(allowed(rules, "coordination.k8s.io", "leases")).as("leases only in the release namespace").isEmpty();

        ClusterRoleBinding binding = chart.all(ClusterRoleBinding.class).stream()
                .filter(b -> b.getRoleRef().getName().equals(role.getMetadata().getName())).findFirst().orElseThrow();
        assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getName()).isEqualTo(chart.one(ServiceAccount.class).getMetadata().getName());
            assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
        });
        Role leader = chart.one(Role.class);
        assertThat(leader.getMetadata().getName()).endsWith("-leader-election");
        assertThat(leader.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
        // fabric8's LeaseLock reads, creates and then renews the Lease with PATCH.
        assertThat(allowed(leader.getRules(), "coordination.k8s.io", "leases")).containsExactlyInAnyOrder("get", "create", "update", "patch");
        assertThat(chart.one(RoleBinding.class).getRoleRef().getName()).isEqualTo(leader.getMetadata().getName());
    }

    @Test
    void theNodeReaderMayGetAndListNodesOnlyAndCanBeLeftOut() {
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of());
        ClusterRole reader = chart.all(ClusterRole.class).stream().filter(r -> r.getMetadata().getName().equals("lm-warden-node-reader"))
                .findFirst().orElseThrow(() -> new AssertionError("no node reader"));
        assertReadsNodesAndNothingElse(reader);
        ClusterRoleBinding binding = chart.all(ClusterRoleBinding.class).stream()
                .filter(b -> b.getRoleRef().getName().equals("lm-warden-node-reader")).findFirst().orElseThrow();
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getName()).isEqualTo(chart.one(ServiceAccount.class).getMetadata().getName());
            assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
        });
        assertThat(RenderedChart.render("lm-warden", NAMESPACE, Map.of("rbac.readNodes", "false")).all(ClusterRole.class))
                .noneMatch(r -> r.getMetadata().getName().endsWith("-node-reader"));
    }

    /** The operator's own ClusterRole, beside the node reader. */
    private static ClusterRole operatorRole(RenderedChart chart) {
        List<ClusterRole> roles = chart.all(ClusterRole.class).stream().filter(r -> !r.getMetadata().getName().endsWith("-node-reader")).toList();
        assertThat(roles).hasSize(1);
        return roles.get(0);
    }

    private static void assertReadsNodesAndNothingElse(ClusterRole role) {
        assertThat(role.getMetadata().getName()).endsWith("-node-reader");
        assertThat(role.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).containsExactly("nodes");
            assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "list");
        });
    }

    @Test
    void valuesChangeImagesNamespacesAndLeaderElection(@TempDir Path dir) throws java.io.IOException {
        Path values = Files.writeString(dir.resolve("values.yaml"), """
                operator:
                  watchNamespaces: [team-a, team-b]
                """);
        RenderedChart chart = RenderedChart.render("prod", NAMESPACE, Map.of(
                "operator.image.repository", "registry.example/lmw/operator",
                "operator.image.tag", "1.2.3",
                "router.image.repository", "registry.example/lmw/router",
                "router.image.tag", "1.2.4",
                "router.image.pullPolicy", "Always",
                "operator.leaderElection", "false",
                "operator.logFormat", "json"), values);
        Container operator = chart.one(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);

        assertThat(operator.getImage()).isEqualTo("registry.example/lmw/operator:1.2.3");
        assertThat(env(operator, OperatorDefaults.ROUTER_IMAGE_ENV)).isEqualTo("registry.example/lmw/router:1.2.4");
        assertThat(env(operator, OperatorDefaults.IMAGE_PULL_POLICY_ENV)).isEqualTo("Always");
        assertThat(env(operator, "LMW_WATCH_NAMESPACES")).isEqualTo("team-a,team-b");
        assertThat(env(operator, "LMW_LOG_FORMAT")).isEqualTo("json");
        assertThat(operator.getArgs()).contains("--leader-election=false");
        assertThat(chart.all(Role.class)).as("no Lease rights without leader election")
                .noneMatch(r -> r.getMetadata().getName().endsWith("-leader-election"));
        assertThat(chart.one(Deployment.class).getMetadata().getName()).isEqualTo("prod-lm-warden");
    }

    @Test
    void optionalMonitorsScrapeEveryRouterAndEveryReplicaLabelledByModelDeployment() {
        assertThat(RenderedChart.render("lm-warden", NAMESPACE, Map.of()).all(io.fabric8.kubernetes.api.model.GenericKubernetesResource.class))
                .noneMatch(o -> o.getKind().endsWith("Monitor"));
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of("serviceMonitor.enabled", "true"));
        var monitors = chart.all(io.fabric8.kubernetes.api.model.GenericKubernetesResource.class);
        var routers = monitors.stream().filter(o -> o.getKind().equals("ServiceMonitor")).findFirst().orElseThrow();
        var replicas = monitors.stream().filter(o -> o.getKind().equals("PodMonitor")).findFirst().orElseThrow();
        assertThat(routers.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(replicas.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        Map<String, Object> spec = routers.get("spec");
        assertThat(spec.toString()).contains("any=true").contains("app.kubernetes.io/component=router")
                .contains("app.kubernetes.io/managed-by=" + io.lmwarden.operator.dependent.Labels.MANAGED_BY_VALUE)
                .contains("port=http").contains("path=/metrics")
                .contains("sourceLabels=[__meta_kubernetes_service_label_lmwarden_io_model_deployment], targetLabel=model_deployment");
        Map<String, Object> podSpec = replicas.get("spec");
        assertThat(podSpec.toString()).contains("any=true").contains("app.kubernetes.io/component=replica")
                .contains("port=http").contains("path=/metrics")
                .contains("sourceLabels=[__meta_kubernetes_pod_label_lmwarden_io_model_deployment], targetLabel=model_deployment");
        // The objects the operator makes carry exactly the labels the monitors select and relabel.
        var md = io.lmwarden.operator.SampleModelDeployments.qwenDp4("llm");
        var routerService = new io.lmwarden.operator.dependent.RouterServiceDependent().desired(md);
        assertThat(routerService.getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "router")
                .containsEntry(io.lmwarden.operator.dependent.Labels.MODEL_DEPLOYMENT, md.getMetadata().getName())
                .containsEntry("app.kubernetes.io/managed-by", io.lmwarden.operator.dependent.Labels.MANAGED_BY_VALUE);
        assertThat(routerService.getSpec().getPorts().get(0).getName()).isEqualTo("http");
        var pod = new io.lmwarden.operator.dependent.VllmStatefulSetDependent().desired(md).getSpec().getTemplate();
        assertThat(pod.getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "replica")
                .containsEntry(io.lmwarden.operator.dependent.Labels.MODEL_DEPLOYMENT, md.getMetadata().getName())
                .containsEntry("app.kubernetes.io/managed-by", io.lmwarden.operator.dependent.Labels.MANAGED_BY_VALUE);
        assertThat(pod.getSpec().getContainers().get(0).getPorts()).anySatisfy(p -> assertThat(p.getName()).isEqualTo("http"));
        // Prometheus turns label lmwarden.io/model-deployment into __meta_..._lmwarden_io_model_deployment.
        assertThat(io.lmwarden.operator.dependent.Labels.MODEL_DEPLOYMENT.replaceAll("[^a-zA-Z0-9_]", "_")).isEqualTo("lmwarden_io_model_deployment");
    }

    @Test
    void valuesOfTheWrongTypeAreRefusedByTheSchema() {
        assertThatThrownBy(() -> RenderedChart.render("lm-warden", NAMESPACE, Map.of("operator.replicas", "two")))
                .hasMessageContaining("replicas");
        assertThatThrownBy(() -> RenderedChart.render("lm-warden", NAMESPACE, Map.of("operator.logFormat", "yaml")))
                .hasMessageContaining("logFormat");
        assertThatThrownBy(() -> RenderedChart.render("lm-warden", NAMESPACE, Map.of("operator.replica", "2")))
                .as("a misspelt key").hasMessageContaining("replica");
    }

    @Test
    void twoOperatorReplicasWithoutLeaderElectionFailWithTheReason() {
        assertThatThrownBy(() -> RenderedChart.render("lm-warden", NAMESPACE,
                Map.of("operator.replicas", "2", "operator.leaderElection", "false")))
                .hasMessageContaining("operator.leaderElection=true");
        assertThat(RenderedChart.render("lm-warden", NAMESPACE, Map.of("operator.replicas", "2"))
                .one(Deployment.class).getSpec().getReplicas()).isEqualTo(2);
    }

    @Test
    void annotationValuesRenderAsStrings(@TempDir Path dir) throws java.io.IOException {
        Path values = Files.writeString(dir.resolve("values.yaml"), """
                operator:
                  podAnnotations:
                    prometheus.io/scrape: true
                    prometheus.io/port: 8080
                serviceAccount:
                  annotations:
                    eks.amazonaws.com/sts-regional-endpoints: true
                """);
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of(), values);
        assertThat(chart.yaml()).contains("prometheus.io/scrape: \"true\"", "prometheus.io/port: \"8080\"",
                "eks.amazonaws.com/sts-regional-endpoints: \"true\"");
        assertThat(chart.one(Deployment.class).getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("prometheus.io/scrape", "true");
    }

    @Test
    void runAsUserAndGroupCanBeLeftToThePlatform(@TempDir Path dir) throws java.io.IOException {
        var defaults = RenderedChart.render("lm-warden", NAMESPACE, Map.of()).one(Deployment.class).getSpec().getTemplate().getSpec();
        assertThat(defaults.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
        Path values = Files.writeString(dir.resolve("values.yaml"), """
                operator:
                  podSecurityContext:
                    runAsUser: null
                    runAsGroup: null
                """);
        var openShift = RenderedChart.render("lm-warden", NAMESPACE, Map.of(), values).one(Deployment.class).getSpec().getTemplate().getSpec();
        assertThat(openShift.getSecurityContext().getRunAsUser()).as("OpenShift's restricted-v2 assigns the UID").isNull();
        assertThat(openShift.getSecurityContext().getRunAsGroup()).isNull();
        assertThat(openShift.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(openShift.getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    }

    @Test
    void nameOverrideAndFullnameOverrideNameTheObjects() {
        RenderedChart renamed = RenderedChart.render("prod", NAMESPACE, Map.of("nameOverride", "warden"));
        assertThat(renamed.one(Deployment.class).getMetadata().getName()).isEqualTo("prod-warden");
        assertThat(renamed.one(Deployment.class).getMetadata().getLabels()).containsEntry("app.kubernetes.io/name", "warden");
        RenderedChart full = RenderedChart.render("prod", NAMESPACE, Map.of("fullnameOverride", "lmw"));
        assertThat(full.one(Deployment.class).getMetadata().getName()).isEqualTo("lmw");
        assertThat(full.one(ServiceAccount.class).getMetadata().getName()).isEqualTo("lmw");
        assertThat(operatorRole(full).getMetadata().getName()).isEqualTo("lmw");
    }

    @Test
    void chartMetadataNamesItsHomeSourcesAndIcon() throws Exception {
        var chart = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(RepositoryFiles.chart().resolve("Chart.yaml").toFile());
        assertThat(chart.path("home").asText()).startsWith("https://");
        assertThat(chart.path("sources").get(0).asText()).startsWith("https://");
        assertThat(chart.path("icon").asText()).startsWith("https://").endsWith("/helm/lm-warden/icon.svg");
        assertThat(RepositoryFiles.chart().resolve("icon.svg")).as("the icon the URL points at is in the repository").isRegularFile();
    }

    @Test
    void notesShowAChartRepoUserAModelDeploymentThatApplies() throws Exception {
        String notes = Files.readString(RepositoryFiles.chart().resolve("templates").resolve("NOTES.txt"));
        assertThat(notes).as("a chart-repo user has no checkout to apply files from").doesNotContain("deploy/examples");
        int start = notes.indexOf("<<'MD'\n") + "<<'MD'\n".length();
        String manifest = notes.substring(start, notes.indexOf("\n  MD\n", start)).replaceAll("(?m)^  ", "");
        var md = new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
                .unmarshal(manifest, io.lmwarden.operator.model.ModelDeployment.class);
        assertThat(md.getSpec().getSimulator().getEnabled()).isTrue();
        assertThat(md.getSpec().getDataParallelSize()).isEqualTo(2);
        assertThat(notes).contains("whoever can create a ModelDeployment can run its image with the Secrets and service account",
                "operator.allowedImages", "operator.watchNamespaces");
        assertThat(notes).contains("kubectl get md " + md.getMetadata().getName(), "READY shows 2/2",
                "port-forward service/" + md.getMetadata().getName() + " 8000:" + io.lmwarden.operator.dependent.RouterServiceDependent.PORT);
    }

    @Test
    void anOptionalPodDisruptionBudgetKeepsAnOperatorPodThroughDrains() {
        assertThat(RenderedChart.render("lm-warden", NAMESPACE, Map.of())
                .all(io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class)).isEmpty();
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of("operator.replicas", "2",
                "operator.podDisruptionBudget.enabled", "true"));
        var pdb = chart.one(io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class);
        assertThat(pdb.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(pdb.getSpec().getSelector().getMatchLabels())
                .isEqualTo(chart.one(Deployment.class).getSpec().getSelector().getMatchLabels());
    }

    @Test
    void deployOperatorYamlIsNotLabelledAsAHelmRelease() {
        assertThat(RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/operator.yaml")))
                .doesNotContain("managed-by: Helm").contains("app.kubernetes.io/name: lm-warden");
    }

    @Test
    void deployOperatorYamlIsTheCrdPlusTheRenderedChart() {
        String expected = DeployManifest.render();
        var target = RepositoryFiles.root().resolve("deploy/operator.yaml");
        if (RepositoryFiles.updateRequested()) {
            RepositoryFiles.write(target, expected);
        }
        assertThat(target).as(target + " is missing; " + RepositoryFiles.howToRefresh()).exists();
        assertThat(RepositoryFiles.read(target))
                .as("deploy/operator.yaml differs from the chart and CRD; " + RepositoryFiles.howToRefresh())
                .isEqualTo(expected);
    }

    @Test
    void watchNamespacesGrantsRolesInThoseNamespacesAndNothingClusterWide(@TempDir Path dir) throws Exception {
        Path values = Files.writeString(dir.resolve("values.yaml"), """
                operator:
                  watchNamespaces: [team-a, team-b]
                serviceMonitor:
                  enabled: true
                """);
        RenderedChart chart = RenderedChart.render("lm-warden", NAMESPACE, Map.of(), values);

        assertThat(chart.all(ClusterRole.class)).as("no ClusterRole when watchNamespaces is set but the node reader")
                .singleElement().satisfies(HelmChartTest::assertReadsNodesAndNothingElse);
        assertThat(chart.all(ClusterRoleBinding.class)).singleElement()
                .satisfies(b -> assertThat(b.getRoleRef().getName()).isEqualTo("lm-warden-node-reader"));
        List<Role> operatorRoles = chart.all(Role.class).stream()
                .filter(r -> r.getMetadata().getName().equals("lm-warden")).toList();
        assertThat(operatorRoles).extracting(r -> r.getMetadata().getNamespace()).containsExactly("team-a", "team-b");
        List<PolicyRule> clusterWide = operatorRole(RenderedChart.render("lm-warden", NAMESPACE, Map.of())).getRules();
        for (Role role : operatorRoles) {
            assertThat(role.getRules()).as("the same rules as the all-namespace ClusterRole").isEqualTo(clusterWide);
            assertCoversTheOperatorAndNothingMore(role.getRules());
            RoleBinding binding = chart.all(RoleBinding.class).stream()
                    .filter(b -> b.getMetadata().getNamespace().equals(role.getMetadata().getNamespace()))
                    .findFirst().orElseThrow(() -> new AssertionError("no RoleBinding in " + role.getMetadata().getNamespace()));
            assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
            assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
            assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
                assertThat(s.getName()).isEqualTo(chart.one(ServiceAccount.class).getMetadata().getName());
                assertThat(s.getNamespace()).as("the operator's ServiceAccount lives in the release namespace").isEqualTo(NAMESPACE);
            });
        }
        assertThat(chart.all(RoleBinding.class)).extracting(b -> b.getMetadata().getNamespace())
                .containsExactlyInAnyOrder("team-a", "team-b", NAMESPACE);
        Container operator = chart.one(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(env(operator, "LMW_WATCH_NAMESPACES")).isEqualTo("team-a,team-b");
        // The monitors look only where the operator makes objects.
        var monitors = chart.all(io.fabric8.kubernetes.api.model.GenericKubernetesResource.class);
        assertThat(monitors).hasSize(2).allSatisfy(m -> assertThat(m.get("spec").toString())
                .contains("namespaceSelector={matchNames=[team-a, team-b]}").doesNotContain("any=true"));
    }

    @Test
    void allowedImagesReachTheOperatorAndDefaultToAllowingAll(@TempDir Path dir) throws Exception {
        Container defaults = RenderedChart.render("lm-warden", NAMESPACE, Map.of()).one(Deployment.class)
                .getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(env(defaults, "LMW_ALLOWED_IMAGES")).as("empty: every image").isEmpty();
        Path values = Files.writeString(dir.resolve("values.yaml"), """
                operator:
                  allowedImages: ["registry.example/ml/*", "vllm/vllm-openai:v0.11.*"]
                """);
        Container operator = RenderedChart.render("lm-warden", NAMESPACE, Map.of(), values).one(Deployment.class)
                .getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(io.lmwarden.operator.reconciler.ImageAllowList.parse(env(operator, "LMW_ALLOWED_IMAGES")).patterns())
                .containsExactly("registry.example/ml/*", "vllm/vllm-openai:v0.11.*");
        Path comma = Files.writeString(dir.resolve("comma.yaml"), """
                operator:
                  allowedImages: ["a/*,b/*"]
                """);
        assertThatThrownBy(() -> RenderedChart.render("lm-warden", NAMESPACE, Map.of(), comma))
                .as("one pattern per list item").hasMessageContaining("allowedImages");
    }

    /** No wildcards, no Secrets, delete only for NetworkPolicies and replica pods, and every dependent the reconciler declares manageable. */
    private static void assertCoversTheOperatorAndNothingMore(List<PolicyRule> rules) throws Exception {
        for (PolicyRule rule : rules) {
            assertThat(rule.getVerbs()).as("no wildcard verbs").doesNotContain("*");
            assertThat(rule.getResources()).as("no wildcard resources").doesNotContain("*");
            assertThat(rule.getApiGroups()).as("no wildcard groups").doesNotContain("*");
            assertThat(rule.getResources()).as("no access to secrets").doesNotContain("secrets");
            assertThat(rule.getVerbs()).doesNotContain("deletecollection");
            if (!rule.getResources().equals(List.of("networkpolicies")) && !rule.getResources().equals(List.of("pods"))) {
                assertThat(rule.getVerbs()).as("owned objects are deleted by the garbage collector: " + rule.getResources())
                        .doesNotContain("delete");
            }
        }
        assertThat(allowed(rules, "lmwarden.io", "modeldeployments")).containsExactlyInAnyOrder("get", "list", "watch");
        assertThat(allowed(rules, "lmwarden.io", "modeldeployments/status")).contains("patch", "update");
        // The operator removes NetworkPolicies itself when spec.networkPolicy.enabled turns false.
        assertThat(allowed(rules, "networking.k8s.io", "networkpolicies")).contains("delete");
        // A rolling update deletes outdated replica pods one at a time; it never creates or changes a pod.
        assertThat(allowed(rules, "", "pods")).containsExactlyInAnyOrder("get", "list", "watch", "delete");

        // Every dependent the reconciler declares must be manageable.
        for (Dependent dependent : ModelDeploymentReconciler.class.getAnnotation(Workflow.class).dependents()) {
            var instance = dependent.type().getConstructor().newInstance();
            @SuppressWarnings("unchecked")
            Class<? extends HasMetadata> kind = (Class<? extends HasMetadata>) instance.resourceType();
            assertThat(allowed(rules, HasMetadata.getGroup(kind), HasMetadata.getPlural(kind)))
                    .as(kind.getSimpleName())
                    .contains("get", "list", "watch", "create", "update", "patch");
        }
        // Kubernetes lets the operator grant the router's Role only if it holds those rights itself.
        Role routerRole = new RouterRoleDependent().desired(SampleModelDeployments.qwenDp4("ns"));
        for (PolicyRule granted : routerRole.getRules()) {
            for (String resource : granted.getResources()) {
                assertThat(allowed(rules, granted.getApiGroups().get(0), resource)).containsAll(granted.getVerbs());
            }
        }
    }

    private static List<String> allowed(List<PolicyRule> rules, String group, String resource) {
        return rules.stream()
                .filter(r -> r.getApiGroups().contains(group) && r.getResources().contains(resource))
                .flatMap(r -> r.getVerbs().stream())
                .distinct()
                .toList();
    }

    private static String env(Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name));
    }
}
