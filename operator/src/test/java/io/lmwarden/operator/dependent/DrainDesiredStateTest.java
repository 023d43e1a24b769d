package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How replica and router pods go without losing a request: preStop waits, grace periods, update strategies. */
class DrainDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();

    @Test
    void theOperatorNotTheStatefulSetReplacesReplicaPods() {
        StatefulSet sts = new VllmStatefulSetDependent(DEFAULTS).desired(SampleModelDeployments.qwenDp4("ns"));
        assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
        assertThat(sts.getSpec().getUpdateStrategy().getRollingUpdate()).isNull();
    }

    @Test
    void aVllmPodWaitsInPreStopUntilItsEngineIsIdleBoundedByTheDrainTimeoutAndItsGracePeriodCoversThat() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        PodSpec pod = podSpec(md);
        List<String> preStop = pod.getContainers().get(0).getLifecycle().getPreStop().getExec().getCommand();

        assertThat(preStop.subList(0, 2)).containsExactly("python3", "-c");
        assertThat(preStop.get(2)).as("the script the IT runs against a simulator").isEqualTo(script())
                .contains("vllm:num_requests_running", "vllm:num_requests_waiting");
        assertThat(preStop.subList(3, preStop.size())).containsExactly("--metrics-url", "http://127.0.0.1:8000/metrics",
                "--settle-seconds", "5", "--quiet-reads", "3", "--interval-seconds", "1", "--deadline-seconds", "300");
        assertThat(pod.getTerminationGracePeriodSeconds()).as("5m drain + 30 s for vLLM's own shutdown").isEqualTo(330L);

        md.getSpec().setDrainTimeout("20m");
        PodSpec longer = podSpec(md);
        assertThat(longer.getContainers().get(0).getLifecycle().getPreStop().getExec().getCommand()).endsWith("--deadline-seconds", "1200");
        assertThat(longer.getTerminationGracePeriodSeconds()).isEqualTo(1230L);
    }

    @Test
    void aSimulatedReplicaWaitsTheSameWayWithTheSimulatorJarsAwaitIdle() throws Exception {
        ModelDeployment md = SampleModelDeployments.simulated("ns", 2);
        PodSpec pod = podSpec(md);
        Container sim = pod.getContainers().get(0);
        List<String> preStop = sim.getLifecycle().getPreStop().getExec().getCommand();

        assertThat(preStop).startsWith("java").containsSubsequence("-cp", "/app/lmw-sim.jar", "io.lmwarden.sim.AwaitIdle")
                .endsWith("--metrics-url", "http://127.0.0.1:8000/metrics", "--settle-seconds", "5", "--quiet-reads", "3",
                        "--interval-seconds", "1", "--deadline-seconds", "300");
        assertThat(sim.getCommand()).as("the same jar the simulator runs from").contains("/app/lmw-sim.jar");
        assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(310L);
        Path source = RepoRoot.path("sim/src/main/java/" + ReplicaDrain.AWAIT_IDLE_CLASS.replace('.', '/') + ".java");
        assertThat(Files.readString(source)).contains("public static void main(String[] args)");
    }

    @Test
    void drainAndReadyTimeoutsAreDurationsAndMaxUnavailableIsAtLeastOne() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.getSpec().setDrainTimeout("five minutes");
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS))
                .hasMessage("spec.drainTimeout must be a duration such as 30s, 5m or 1h, got 'five minutes'");
        md.getSpec().setDrainTimeout("0s");
        assertThat(EffectiveSpec.of(md.getSpec(), DEFAULTS).rollout().drainTimeout()).as("no drain at all is allowed").isZero();
        md.getSpec().setReadyTimeout("0s");
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).hasMessageContaining("spec.readyTimeout must be longer than 0s");
        md.getSpec().setReadyTimeout(null);
        md.getSpec().setMaxUnavailable(0);
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).hasMessage("spec.maxUnavailable must be at least 1, got 0");
        md.getSpec().setMaxUnavailable(null);
        var rollout = EffectiveSpec.of(md.getSpec(), DEFAULTS).rollout();
        assertThat(rollout.maxUnavailable()).isEqualTo(1);
        assertThat(rollout.readyTimeout()).hasMinutes(30);
    }

    @Test
    void aRouterRolloutStartsTheNewPodFirstAndAStoppingRouterOutlivesItsServiceAndItsShutdownGrace() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        Deployment router = new RouterDeploymentDependent(DEFAULTS).desired(md);
        var strategy = router.getSpec().getStrategy();
        assertThat(strategy.getType()).isEqualTo("RollingUpdate");
        assertThat(strategy.getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
        assertThat(strategy.getRollingUpdate().getMaxSurge().getIntVal()).isEqualTo(1);
        Container container = router.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(container.getLifecycle().getPreStop().getExec().getCommand()).containsExactly("sleep", "10");
        assertThat(router.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
                .as("10 s preStop + the router's default 30 s shutdownGrace + 10 s to exit").isEqualTo(50L);
        assertThat(new RouterConfigMapDependent(DEFAULTS).desired(md).getData().get(RouterSettings.CONFIG_FILE))
                .contains("shutdownGrace: \"30s\"");
        assertThat(container.getEnv()).filteredOn(e -> e.getName().equals("LMW_DEPLOYMENT")).singleElement()
                .satisfies(e -> assertThat(e.getValue()).isEqualTo("qwen3-4b"));

        md.getSpec().getRouter().setShutdownGrace("2m");
        Deployment slower = new RouterDeploymentDependent(DEFAULTS).desired(md);
        assertThat(slower.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds()).isEqualTo(140L);
        assertThat(new RouterConfigMapDependent(DEFAULTS).desired(md).getData().get(RouterSettings.CONFIG_FILE))
                .contains("shutdownGrace: \"2m\"");
        md.getSpec().getRouter().setShutdownGrace("1500ms");
        assertThat(new RouterDeploymentDependent(DEFAULTS).desired(md).getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
                .as("a fraction of a second rounds up").isEqualTo(22L);
    }

    private static PodSpec podSpec(ModelDeployment md) {
        return new VllmStatefulSetDependent(DEFAULTS).desired(md).getSpec().getTemplate().getSpec();
    }

    private static String script() {
        try (var in = ReplicaDrain.class.getResourceAsStream("await-idle.py")) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The repository's root, as the build passes it to the tests. */
    private static final class RepoRoot {
        static Path path(String relative) {
            return Path.of(System.getProperty("lmw.repo.root", "..")).resolve(relative);
        }
    }
}
