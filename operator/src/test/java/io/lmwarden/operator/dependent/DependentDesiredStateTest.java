package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DependentDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("registry.example/lmw/router:1.2.3", "Always");

    private final VllmStatefulSetDependent statefulSets = new VllmStatefulSetDependent(DEFAULTS);
    private final ReplicaServiceDependent replicaServices = new ReplicaServiceDependent(DEFAULTS);
    private final RouterConfigMapDependent configMaps = new RouterConfigMapDependent(DEFAULTS);
    private final RouterDeploymentDependent routers = new RouterDeploymentDependent(DEFAULTS);
    private final RouterServiceDependent routerServices = new RouterServiceDependent(DEFAULTS);
    private final RouterServiceAccountDependent serviceAccounts = new RouterServiceAccountDependent(DEFAULTS);
    private final RouterRoleDependent roles = new RouterRoleDependent(DEFAULTS);
    private final RouterRoleBindingDependent roleBindings = new RouterRoleBindingDependent(DEFAULTS);

    @Test
    void referenceSetupRunsOneSingleGpuVllmPodPerReplicaOnGpuNodes() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("agents");
        StatefulSet sts = statefulSets.desired(md);

        assertThat(sts.getMetadata().getName()).isEqualTo("qwen3-4b-vllm");
        assertThat(sts.getMetadata().getNamespace()).isEqualTo("agents");
        assertThat(sts.getSpec().getReplicas()).isEqualTo(4);
        assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
        var pod = sts.getSpec().getTemplate().getSpec();
        Container vllm = single(pod.getContainers());
        assertThat(vllm.getImage()).isEqualTo("vllm/vllm-openai:v0.26.0");
        assertThat(vllm.getCommand()).containsExactly("vllm", "serve");
        assertThat(vllm.getArgs()).startsWith("Qwen/Qwen3-4B-Instruct-2507")
                .containsSubsequence("--tensor-parallel-size", "1")
                .containsSubsequence("--port", "8000")
                .containsSubsequence("--served-model-name", "Qwen/Qwen3-4B-Instruct-2507")
                .containsSubsequence("--max-num-seqs", "32")
                .contains("--enable-prompt-tokens-details", "--enable-prefix-caching")
                .doesNotContain("--max-model-len", "--gpu-memory-utilization");
        assertThat(vllm.getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("1"));
        assertThat(vllm.getResources().getRequests()).containsEntry("nvidia.com/gpu", new Quantity("1"));
        assertThat(pod.getNodeSelector()).isEqualTo(Map.of("nvidia.com/gpu.present", "true"));
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("nvidia.com/gpu");
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        EnvVar token = vllm.getEnv().stream().filter(e -> e.getName().equals("HF_TOKEN")).findFirst().orElseThrow();
        assertThat(token.getValueFrom().getSecretKeyRef().getName()).isEqualTo("hf-token");
        assertThat(token.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
        assertThat(token.getValue()).isNull();
    }

    @Test
    void vllmProbesGiveModelLoadingTimeAndCheckHealth() {
        Container vllm = single(statefulSets.desired(SampleModelDeployments.qwenDp4("ns")).getSpec().getTemplate().getSpec().getContainers());
        assertThat(vllm.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(vllm.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(vllm.getStartupProbe().getHttpGet().getPath()).isEqualTo("/health");
        int startupSeconds = vllm.getStartupProbe().getPeriodSeconds() * vllm.getStartupProbe().getFailureThreshold();
        assertThat(startupSeconds).as("time allowed for download and load").isGreaterThanOrEqualTo(20 * 60);
        assertThat(vllm.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(vllm.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8000));
    }

    @Test
    void vllmPodMountsSharedMemoryAndModelCache() {
        var pod = statefulSets.desired(SampleModelDeployments.qwenDp4("ns")).getSpec().getTemplate().getSpec();
        Container vllm = single(pod.getContainers());
        assertThat(vllm.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(vllm.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(vllm.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/dev/shm");
            assertThat(m.getName()).isEqualTo("dshm");
        });
        assertThat(vllm.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/root/.cache/huggingface");
            assertThat(m.getName()).isEqualTo("model-cache");
        });
        assertThat(pod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("dshm");
            assertThat(v.getEmptyDir().getMedium()).isEqualTo("Memory");
        });
        assertThat(pod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("model-cache");
            assertThat(v.getEmptyDir()).isNotNull();
        });

        ModelDeployment withClaim = SampleModelDeployments.qwenDp4("ns");
        withClaim.getSpec().setModelCache(new io.lmwarden.operator.model.ModelCacheSpec("hf-cache", null, "/models"));
        var claimPod = statefulSets.desired(withClaim).getSpec().getTemplate().getSpec();
        assertThat(claimPod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("model-cache");
            assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("hf-cache");
        });
        assertThat(single(claimPod.getContainers()).getVolumeMounts())
                .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/models"));
    }

    @Test
    void tensorParallelismSetsGpuLimitAndArgsAndKeepsUserSettings() {
        ModelDeployment md = SampleModelDeployments.tensorParallel("ns");
        var pod = statefulSets.desired(md).getSpec().getTemplate().getSpec();
        Container vllm = single(pod.getContainers());

        assertThat(vllm.getResources().getLimits())
                .as("the user's 8 GPUs are overridden by tensorParallelSize")
                .containsEntry("nvidia.com/gpu", new Quantity("2"))
                .containsEntry("memory", new Quantity("64Gi"));
        assertThat(vllm.getArgs())
                .startsWith("Qwen/Qwen3-32B")
                .containsSubsequence("--served-model-name", "qwen3-32b")
                .containsSubsequence("--tensor-parallel-size", "2")
                .containsSubsequence("--max-model-len", "32768")
                .containsSubsequence("--gpu-memory-utilization", "0.9")
                .endsWith("--kv-cache-dtype", "fp8");
        assertThat(pod.getNodeSelector()).isEqualTo(Map.of("gpu.example.com/class", "a100"));
        assertThat(pod.getTolerations()).as("defaults still apply to fields left out").hasSize(1);
    }

    @Test
    void dataParallelServerLayoutRunsOnePodWithAllGpusAndVllmsDataParallelism() {
        ModelDeployment md = SampleModelDeployments.tensorParallel("ns");
        md.getSpec().setDataParallelSize(4);
        md.getSpec().setReplicaLayout("dataParallelServer");
        StatefulSet sts = statefulSets.desired(md);
        Container vllm = single(sts.getSpec().getTemplate().getSpec().getContainers());

        assertThat(sts.getSpec().getReplicas()).as("one server for all four replicas").isEqualTo(1);
        assertThat(vllm.getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("8"));
        assertThat(vllm.getResources().getRequests()).containsEntry("nvidia.com/gpu", new Quantity("8"));
        assertThat(vllm.getArgs()).containsSubsequence("--tensor-parallel-size", "2")
                .containsSubsequence("--data-parallel-size", "4");
        assertThat(routers.desired(md).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
                .as("the router follows the one pod and learns its ranks from its /metrics")
                .containsSubsequence("--k8s-service", ResourceNames.of(md).replicaService());

        md.getSpec().setReplicaLayout("podPerReplica");
        StatefulSet perReplica = statefulSets.desired(md);
        assertThat(perReplica.getSpec().getReplicas()).isEqualTo(4);
        assertThat(single(perReplica.getSpec().getTemplate().getSpec().getContainers()).getArgs()).doesNotContain("--data-parallel-size");

        ModelDeployment sim = SampleModelDeployments.simulated("demo", 4);
        sim.getSpec().setReplicaLayout("dataParallelServer");
        StatefulSet simSts = statefulSets.desired(sim);
        assertThat(simSts.getSpec().getReplicas()).isEqualTo(1);
        assertThat(single(simSts.getSpec().getTemplate().getSpec().getContainers()).getArgs())
                .containsSubsequence("--engines", "4");
    }

    @Test
    void simulatedReplicasRunTheSimulatorFromTheRouterImageWithoutGpu() {
        ModelDeployment md = SampleModelDeployments.simulated("demo", 3);
        StatefulSet sts = statefulSets.desired(md);
        var pod = sts.getSpec().getTemplate().getSpec();
        Container sim = single(pod.getContainers());

        assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
        assertThat(sim.getImage()).isEqualTo("registry.example/lmw/router:1.2.3");
        assertThat(sim.getImagePullPolicy()).isEqualTo("Always");
        assertThat(sim.getCommand()).containsExactly("java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/lmw-sim.jar");
        assertThat(sim.getArgs()).containsExactly("--replicas", "1", "--port", "8000", "--host", "0.0.0.0",
                "--model", "Qwen/Qwen3-4B-Instruct-2507", "--profile", "a4000-qwen3-4b");
        md.getSpec().setMaxNumSeqs(48);
        assertThat(single(statefulSets.desired(md).getSpec().getTemplate().getSpec().getContainers()).getArgs())
                .endsWith("--max-num-seqs", "48");
        assertThat(sim.getResources().getLimits()).doesNotContainKey("nvidia.com/gpu");
        assertThat(sim.getResources().getRequests()).doesNotContainKey("nvidia.com/gpu");
        assertThat(pod.getNodeSelector()).isEmpty();
        assertThat(pod.getTolerations()).isEmpty();
        assertThat(sim.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(sim.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(sim.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    }

    @Test
    void labelsAndSelectorsTieStatefulSetServiceAndRouterTogether() {
        for (ModelDeployment md : List.of(SampleModelDeployments.qwenDp4("a"), SampleModelDeployments.tensorParallel("b"),
                SampleModelDeployments.simulated("c", 2))) {
            StatefulSet sts = statefulSets.desired(md);
            Service replicas = replicaServices.desired(md);
            Deployment router = routers.desired(md);
            Service front = routerServices.desired(md);

            assertThat(sts.getSpec().getTemplate().getSpec().getEnableServiceLinks())
                    .as("no VLLM_PORT=tcp://... from a Service named vllm").isFalse();
            assertThat(sts.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
                    .as("replica pods get no API token").isFalse();
            assertThat(sts.getSpec().getTemplate().getSpec().getServiceAccountName()).as("the namespace's default").isNull();
            assertThat(router.getSpec().getTemplate().getSpec().getEnableServiceLinks())
                    .as("no LMW_*=tcp://... from Services named lmw-...").isFalse();
            Map<String, String> replicaPodLabels = sts.getSpec().getTemplate().getMetadata().getLabels();
            assertThat(replicaPodLabels).containsAllEntriesOf(sts.getSpec().getSelector().getMatchLabels());
            assertThat(replicaPodLabels).containsAllEntriesOf(replicas.getSpec().getSelector());
            assertThat(replicas.getSpec().getClusterIP()).isEqualTo("None");
            assertThat(replicas.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(8000));
            assertThat(sts.getSpec().getServiceName()).isEqualTo(replicas.getMetadata().getName());

            Container routerContainer = single(router.getSpec().getTemplate().getSpec().getContainers());
            assertThat(routerContainer.getArgs()).containsSubsequence("--k8s-service", replicas.getMetadata().getName());
            assertThat(routerContainer.getArgs()).containsSubsequence("--namespace", md.getMetadata().getNamespace());

            Map<String, String> routerPodLabels = router.getSpec().getTemplate().getMetadata().getLabels();
            assertThat(routerPodLabels).containsAllEntriesOf(router.getSpec().getSelector().getMatchLabels());
            assertThat(routerPodLabels).containsAllEntriesOf(front.getSpec().getSelector());
            assertThat(selects(front.getSpec().getSelector(), replicaPodLabels))
                    .as("the router Service must not select replica pods").isFalse();
            assertThat(selects(replicas.getSpec().getSelector(), routerPodLabels))
                    .as("the replica Service must not select router pods").isFalse();

            assertThat(front.getMetadata().getName()).isEqualTo(md.getMetadata().getName());
            assertThat(front.getSpec().getType()).isEqualTo("ClusterIP");
            assertThat(front.getSpec().getPorts()).singleElement().satisfies(p -> {
                assertThat(p.getPort()).isEqualTo(80);
                assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
            });
            assertThat(routerContainer.getPorts()).filteredOn(p -> p.getName().equals("http")).singleElement().satisfies(p -> {
                assertThat(p.getName()).isEqualTo("http");
                assertThat(p.getContainerPort()).isEqualTo(8000);
            });
            for (var object : List.of(sts, replicas, router, front, configMaps.desired(md), serviceAccounts.desired(md),
                    roles.desired(md), roleBindings.desired(md))) {
                assertThat(object.getMetadata().getLabels())
                        .as(object.getKind() + " carries the label the operator's informers select on")
                        .containsEntry(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
                        .containsEntry(Labels.MODEL_DEPLOYMENT, md.getMetadata().getName());
                assertThat(object.getMetadata().getNamespace()).isEqualTo(md.getMetadata().getNamespace());
            }
        }
    }

    @Test
    void routerArgsCarryPolicySettingsAndConfigFileAgrees() {
        ModelDeployment md = SampleModelDeployments.tensorParallel("ns");
        md.getSpec().getRouter().getAdmission().setQueueFailFast(false);
        Deployment router = routers.desired(md);
        Container container = single(router.getSpec().getTemplate().getSpec().getContainers());

        assertThat(router.getSpec().getReplicas()).isEqualTo(2);
        assertThat(container.getImage()).isEqualTo("registry.example/lmw/router:1.2.3");
        assertThat(container.getCommand()).containsExactly("java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/lmw-router.jar");
        assertThat(container.getArgs()).containsExactly(
                "--port", "8000", "--k8s-service", "big-replicas", "--namespace", "ns",
                "--policy", "least-loaded", "--spill-threshold", "6", "--session-idle-timeout", "30m",
                "--affinity", "false", "--config", "/etc/lmw/router.yaml",
                "--cluster", "dns:big-router-peers.ns.svc.cluster.local", "--cluster-port", "7800", "--cluster-name", "ns/big");

        String yaml = configMaps.desired(md).getData().get("router.yaml");
        assertThat(yaml).contains("k8sService: \"big-replicas\"", "policy: \"least-loaded\"", "spillThreshold: \"6\"",
                "affinity: false", "sessionIdleTimeout: \"30m\"", "namespace: \"ns\"");
        assertThat(yaml).doesNotContain("maxNumSeqs");
        assertThat(yaml.lines().filter(l -> !l.startsWith("#")).map(l -> l.substring(0, l.indexOf(':'))))
                .as("only keys the router accepts (it rejects unknown ones)")
                .isSubsetOf("port", "k8sService", "namespace", "policy", "spillThreshold", "affinity", "sessionIdleTimeout", "shutdownGrace", "maxNumSeqs",
                        "admission", "kvBudget", "residencyIdle", "residencySlice", "queueMax", "queueTimeout", "queueWaitBound", "queueKeepAlive",
                        "queueFailFast", "admissionEngage", "maxLoras");
        assertThat(yaml).contains("admission: false", "queueTimeout: \"2m\"", "kvBudget: 0.8", "admissionEngage: \"always\"");
        assertThat(yaml).as("unset admission settings are the router's defaults").doesNotContain("residencySlice", "queueMax");
        // Every key the operator writes is one the router accepts, with a value it parses.
        java.util.Map<String, String> file = new java.util.HashMap<>();
        yaml.lines().filter(l -> !l.startsWith("#")).forEach(l -> file.put(l.substring(0, l.indexOf(':')),
                l.substring(l.indexOf(':') + 1).trim().replace("\"", "")));
        assertThat(file).containsEntry("queueTimeout", "2m").containsEntry("queueFailFast", "false");
        try {
            assertThat(java.nio.file.Files.readString(java.nio.file.Path.of("..", "router", "README.md")))
                    .as("queueFailFast is a key of the router's settings table").contains("| `queueFailFast` | `--queue-fail-fast` |");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(configMaps.desired(SampleModelDeployments.qwenDp4("ns")).getData().get("router.yaml"))
                .contains("maxNumSeqs: 32", "spillThreshold: \"auto\"", "policy: \"affinity\"", "affinity: true");

        var pod = router.getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getConfigMap().getName()).isEqualTo("big-router"));
        assertThat(container.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/lmw"));
    }

    @Test
    void routerIsProbedAndHardened() {
        Deployment router = routers.desired(SampleModelDeployments.qwenDp4("ns"));
        var pod = router.getSpec().getTemplate().getSpec();
        Container container = single(pod.getContainers());

        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isNotZero();
        assertThat(container.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
        assertThat(pod.getServiceAccountName()).isEqualTo("qwen3-4b-router");
        assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
    }

    @Test
    void routerRestartsWhenItsConfigChanges() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        String before = routers.desired(md).getSpec().getTemplate().getMetadata().getAnnotations()
                .get(RouterDeploymentDependent.CONFIG_HASH_ANNOTATION);
        assertThat(routers.desired(md).getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry(RouterDeploymentDependent.CONFIG_HASH_ANNOTATION, before);
        md.getSpec().setMaxNumSeqs(64);
        String after = routers.desired(md).getSpec().getTemplate().getMetadata().getAnnotations()
                .get(RouterDeploymentDependent.CONFIG_HASH_ANNOTATION);
        assertThat(after).isNotEqualTo(before);
    }

    @Test
    void routerMayOnlyReadEndpointSlicesOfItsNamespace() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        Role role = roles.desired(md);
        RoleBinding binding = roleBindings.desired(md);

        assertThat(role.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getApiGroups()).containsExactly("discovery.k8s.io");
            assertThat(rule.getResources()).containsExactly("endpointslices");
            assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
        });
        assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
        assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getKind()).isEqualTo("ServiceAccount");
            assertThat(s.getName()).isEqualTo(serviceAccounts.desired(md).getMetadata().getName());
            assertThat(s.getNamespace()).isEqualTo("ns");
        });
        assertThat(routers.desired(md).getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo(serviceAccounts.desired(md).getMetadata().getName());
    }

    @Test
    void desiredIsPure() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        assertThat(statefulSets.desired(md)).isEqualTo(statefulSets.desired(md));
        assertThat(routers.desired(md)).isEqualTo(routers.desired(md));
        assertThat(configMaps.desired(md)).isEqualTo(configMaps.desired(md));
    }

    private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        return labels.entrySet().containsAll(selector.entrySet());
    }

    private static Container single(List<Container> containers) {
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    @Test
    void routerDisruptionBudgetKeepsOneOfSeveralRoutersAndNeverBlocksADrainOfTheOnlyOne() {
        var budgets = new RouterDisruptionBudgetDependent(DEFAULTS);
        ModelDeployment one = SampleModelDeployments.qwenDp4("ns");
        var single = budgets.desired(one).getSpec();
        assertThat(single.getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(single.getMinAvailable()).isNull();
        assertThat(single.getSelector().getMatchLabels()).isEqualTo(routers.desired(one).getSpec().getSelector().getMatchLabels());
        ModelDeployment two = SampleModelDeployments.qwenDp4("ns");
        two.getSpec().getRouter().setReplicas(2);
        var several = budgets.desired(two).getSpec();
        assertThat(several.getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(several.getMaxUnavailable()).isNull();
    }

    @Test
    void severalRoutersFormOneClusterAndOneRouterNeedsNothingExtra() {
        ModelDeployment clustered = SampleModelDeployments.tensorParallel("ns");
        assertThat(clustered.getSpec().getRouter().getReplicas()).isEqualTo(2);
        var pod = routers.desired(clustered).getSpec().getTemplate().getSpec();
        Container router = single(pod.getContainers());
        assertThat(router.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort())
                .contains("cluster:7800", "cluster-fd:7801");
        assertThat(router.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("LMW_CLUSTER_BIND");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
        });
        String args = String.join(" ", router.getArgs());
        String peers = new RouterPeerServiceDependent(DEFAULTS).desired(clustered).getMetadata().getName();
        assertThat(args).contains("--cluster dns:" + peers + ".ns.svc.cluster.local", "--cluster-port 7800",
                "--cluster-name ns/" + clustered.getMetadata().getName());
        var term = pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().get(0).getPodAffinityTerm();
        assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
        assertThat(term.getLabelSelector().getMatchLabels()).isEqualTo(routers.desired(clustered).getSpec().getSelector().getMatchLabels());

        var peerService = new RouterPeerServiceDependent(DEFAULTS).desired(clustered);
        assertThat(peerService.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(peerService.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(peerService.getSpec().getSelector()).isEqualTo(routers.desired(clustered).getSpec().getSelector().getMatchLabels());
        assertThat(peerService.getSpec().getPorts()).extracting(p -> p.getPort()).containsExactly(7800, 7801);
        var budget = new RouterDisruptionBudgetDependent(DEFAULTS).desired(clustered);
        assertThat(budget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(RouterClustered.clustered(EffectiveSpec.of(clustered.getSpec(), DEFAULTS))).isTrue();

        ModelDeployment single = SampleModelDeployments.qwenDp4("ns");
        assertThat(RouterClustered.clustered(EffectiveSpec.of(single.getSpec(), DEFAULTS))).isFalse();
        var singlePod = routers.desired(single).getSpec().getTemplate().getSpec();
        assertThat(singlePod.getAffinity()).isNull();
        Container alone = single(singlePod.getContainers());
        assertThat(alone.getPorts()).extracting(p -> p.getName()).containsExactly("http");
        assertThat(alone.getArgs()).doesNotContain("--cluster");
    }
}
