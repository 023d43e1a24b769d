package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.KvOffloadSpec;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code spec.kvOffload}: vLLM's flags (checked against vLLM's {@code CacheConfig} at commit 002f10e0 and
 * {@code vllm/config/kv_offloading.py} at 39f42a74, operator/README.md: the size is GiB, the total over the
 * engine's tensor-parallel ranks, each data-parallel engine has its own), the memory the pod
 * asks for, the simulator's flag, and the checks.
 */
class KvOffloadDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();
    private final VllmStatefulSetDependent statefulSets = new VllmStatefulSetDependent(DEFAULTS);

    @Test
    void vllmGetsTheSizeAndAlwaysTheBackendAndThePodHoldsTheTierOnTopOfWhatVllmNeeds() {
        ModelDeployment md = withTier(40.0, null);
        Container vllm = container(md);

        assertThat(vllm.getArgs()).containsSubsequence("--kv-offloading-size", "40", "--kv-offloading-backend", "native");
        // No memory in the user's resources: 16 GiB for vLLM itself + 40 GiB of pinned host memory.
        assertThat(vllm.getResources().getRequests()).containsEntry("memory", new Quantity("57344Mi"))
                .containsEntry("nvidia.com/gpu", new Quantity("1"));
        assertThat(vllm.getResources().getLimits()).containsEntry("memory", new Quantity("57344Mi"));
        assertThat(Quantity.getAmountInBytes(vllm.getResources().getLimits().get("memory")))
                .isEqualByComparingTo(Quantity.getAmountInBytes(new Quantity("56Gi")));
    }

    @Test
    void theUsersMemoryIsWhatVllmNeedsWithoutTheTierAndAFractionalSizeRoundsUpToWholeMiB() {
        ModelDeployment md = withTier(2.5, "lmcache");
        md.getSpec().setResources(new ResourceRequirementsBuilder()
                .addToRequests("memory", new Quantity("24Gi")).addToLimits("memory", new Quantity("32Gi")).addToRequests("cpu", new Quantity("8"))
                .build());
        Container vllm = container(md);

        assertThat(vllm.getArgs()).containsSubsequence("--kv-offloading-size", "2.5", "--kv-offloading-backend", "lmcache");
        assertThat(vllm.getResources().getRequests()).containsEntry("memory", new Quantity((24 * 1024 + 2560) + "Mi"))
                .containsEntry("cpu", new Quantity("8"));
        assertThat(vllm.getResources().getLimits()).containsEntry("memory", new Quantity((32 * 1024 + 2560) + "Mi"));

        md.getSpec().getKvOffload().setSizeGiB(new io.fabric8.kubernetes.api.model.IntOrString("0.0001")); // 0.1024 MiB
        assertThat(container(md).getResources().getRequests()).containsEntry("memory", new Quantity((24 * 1024 + 1) + "Mi"));
        assertThat(container(md).getArgs()).containsSubsequence("--kv-offloading-size", "0.0001");
    }

    @Test
    void aDataParallelServerHoldsOneTierPerEngine() {
        ModelDeployment md = withTier(10.0, null);
        md.getSpec().setReplicaLayout("dataParallelServer");
        md.getSpec().setDataParallelSize(4);
        Container vllm = container(md);

        assertThat(vllm.getArgs()).as("vLLM's flag is per data-parallel rank").containsSubsequence("--kv-offloading-size", "10");
        assertThat(vllm.getResources().getLimits()).containsEntry("memory", new Quantity((16 * 1024 + 4 * 10 * 1024) + "Mi"));
    }

    @Test
    void simulatedReplicasGetTheSimulatorsTierFlagAndNoExtraMemory() {
        ModelDeployment md = SampleModelDeployments.simulated("ns", 2);
        md.getSpec().setKvOffload(new KvOffloadSpec(5.0, null));
        Container sim = container(md);
        assertThat(sim.getArgs()).containsSubsequence("--kv-offload-gib", "5").doesNotContain("--kv-offloading-size");
        assertThat(sim.getResources().getLimits()).as("the simulator models the tier, it holds no KV").containsEntry("memory", new Quantity("768Mi"));
    }

    @Test
    void withoutKvOffloadNothingChanges() {
        Container vllm = container(SampleModelDeployments.qwenDp4("ns"));
        assertThat(vllm.getArgs()).noneMatch(a -> a.startsWith("--kv-offloading"));
        assertThat(vllm.getResources().getLimits()).doesNotContainKey("memory");
        assertThat(vllm.getResources().getRequests()).doesNotContainKey("memory");
    }

    @Test
    void badValuesAreRefusedWithWhatToFix() {
        assertThatThrownBy(() -> EffectiveSpec.of(withTier(0.0, null).getSpec(), DEFAULTS))
                .hasMessage("spec.kvOffload.sizeGiB must be auto or a positive number of GiB, got 0");
        assertThatThrownBy(() -> EffectiveSpec.of(withTier(Double.NaN, null).getSpec(), DEFAULTS))
                .hasMessageContaining("spec.kvOffload.sizeGiB must be auto or a positive number");
        assertThatThrownBy(() -> EffectiveSpec.of(withTier(null, null).getSpec(), DEFAULTS))
                .hasMessageContaining("spec.kvOffload.sizeGiB is required");
        assertThatThrownBy(() -> EffectiveSpec.of(withTier(8.0, "disk").getSpec(), DEFAULTS))
                .hasMessage("spec.kvOffload.backend must be native or lmcache, got 'disk'");

        ModelDeployment doubled = withTier(8.0, null);
        doubled.getSpec().setExtraArgs(List.of("--kv-offloading-size=4"));
        assertThatThrownBy(() -> EffectiveSpec.of(doubled.getSpec(), DEFAULTS))
                .hasMessage("spec.extraArgs sets --kv-offloading-size, which spec.kvOffload sets: remove it from extraArgs and "
                        + "configure spec.kvOffload instead");
        doubled.getSpec().setExtraArgs(List.of("--kv-transfer-config", "{\"kv_connector\":\"LMCacheConnectorV1\"}"));
        assertThatThrownBy(() -> EffectiveSpec.of(doubled.getSpec(), DEFAULTS)).hasMessageContaining("--kv-transfer-config");
    }

    @Test
    void withoutAnImageTheDefaultRunsTheTier() {
        ModelDeployment md = withTier(8.0, null);
        md.getSpec().setImage(null);
        Container vllm = container(md);
        assertThat(vllm.getImage()).isEqualTo("vllm/vllm-openai:v0.26.0");
        assertThat(vllm.getArgs()).containsSubsequence("--kv-offloading-size", "8", "--kv-offloading-backend", "native");
    }

    @Test
    void anOfficialImageTooOldForTheFlagsIsRefusedNewerOrUnknownOnesAreNot() {
        ModelDeployment old = withTier(8.0, null);
        old.getSpec().setImage("vllm/vllm-openai:v0.11.0");
        assertThatThrownBy(() -> EffectiveSpec.of(old.getSpec(), DEFAULTS))
                .hasMessage("spec.kvOffload needs vLLM's host-memory KV tier, which vLLM has since v0.11.1; spec.image is "
                        + "vllm/vllm-openai:v0.11.0 (v0.11.0): set spec.image to vllm/vllm-openai:v0.11.1 or newer, or leave it out for "
                        + "vllm/vllm-openai:v0.26.0");
        for (String image : List.of("vllm/vllm-openai:v0.11.1", "docker.io/vllm/vllm-openai:v0.23.0", "registry.example/ml/vllm:0.9.0",
                "vllm/vllm-openai@sha256:" + "a".repeat(64), "vllm/vllm-openai:nightly")) {
            ModelDeployment md = withTier(8.0, null);
            md.getSpec().setImage(image);
            assertThat(EffectiveSpec.of(md.getSpec(), DEFAULTS).kvOffload()).as(image).isPresent();
        }
        ModelDeployment simulated = SampleModelDeployments.simulated("ns", 1);
        simulated.getSpec().setKvOffload(new KvOffloadSpec(8.0, null));
        assertThat(EffectiveSpec.of(simulated.getSpec(), DEFAULTS).kvOffload()).as("the vLLM image does not run").isPresent();
    }

    static ModelDeployment withTier(Double sizeGiB, String backend) {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.getSpec().setImage("vllm/vllm-openai:v0.23.0");
        md.getSpec().setKvOffload(new KvOffloadSpec(sizeGiB, backend));
        return md;
    }

    private Container container(ModelDeployment md) {
        return statefulSets.desired(md).getSpec().getTemplate().getSpec().getContainers().get(0);
    }
}
