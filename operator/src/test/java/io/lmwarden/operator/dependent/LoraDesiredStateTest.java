package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.LoraAdapterSpec;
import io.lmwarden.operator.model.LoraSpec;
import io.lmwarden.operator.model.LoraVolumeSpec;
import io.lmwarden.operator.model.ModelCacheSpec;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code spec.lora}: vLLM's LoRA flags and variable (forms and limits read in vLLM's source: {@code LoRAParserAction} in
 * vllm/entrypoints/openai/cli_args.py at 00522333, {@code LoRAConfig} in vllm/config/lora.py at a78dc92f,
 * {@code get_adapter_absolute_path} in vllm/lora/utils.py at 0fd15707, {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING} in
 * vllm/envs.py at f218f9c2), the adapters' claims mounted read-only, the simulator's flags, and every refusal.
 */
class LoraDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();
    private final VllmStatefulSetDependent statefulSets = new VllmStatefulSetDependent(DEFAULTS);

    @Test
    void vllmServesEveryAdapterUnderItsNameWithTheLimitsAndRuntimeUpdatingAsItsVariable() {
        Container vllm = container(SampleModelDeployments.withLora("ns"));

        assertThat(vllm.getArgs()).containsSubsequence("--enable-lora", "--lora-modules",
                "team-coder=/lora-adapters/lora-adapters/adapters/team-coder",
                "py-coder=/lora-adapters/lora-adapters/adapters/py-coder",
                "sql-coder=example-org/qwen3-4b-sql-lora",
                "--max-loras", "2", "--max-lora-rank", "32", "--max-cpu-loras", "4");
        assertThat(vllm.getArgs()).as("one --lora-modules: vLLM's parser keeps only the last one").containsOnlyOnce("--lora-modules");
        assertThat(vllm.getEnv()).contains(new EnvVarBuilder().withName("VLLM_ALLOW_RUNTIME_LORA_UPDATING").withValue("True").build());
    }

    @Test
    void theRouterIsToldTheSlotsOfEveryReplicaUnderItsOwnKey() throws java.io.IOException {
        RouterConfigMapDependent configMaps = new RouterConfigMapDependent(DEFAULTS);
        assertThat(configMaps.desired(SampleModelDeployments.withLora("ns")).getData().get("router.yaml")).contains("\nmaxLoras: 2\n");
        assertThat(configMaps.desired(SampleModelDeployments.qwenDp4("ns")).getData().get("router.yaml")).doesNotContain("maxLoras");
        assertThat(java.nio.file.Files.readString(java.nio.file.Path.of("..", "router", "README.md")))
                .as("maxLoras is a key of the router's settings table").contains("| `maxLoras` | `--max-loras` |");
    }

    @Test
    void aClaimIsOneReadOnlyVolumeMountedOnceUnderTheAdaptersRoot() {
        ModelDeployment md = SampleModelDeployments.withLora("ns");
        md.getSpec().getLora().getAdapters().get(2).setHuggingFace(null);
        md.getSpec().getLora().getAdapters().get(2).setVolume(new LoraVolumeSpec("team-b-adapters", null));
        PodSpec pod = pod(md);

        assertThat(pod.getVolumes()).filteredOn(v -> v.getName().startsWith("lora-")).extracting(Volume::getName,
                v -> v.getPersistentVolumeClaim().getClaimName(), v -> v.getPersistentVolumeClaim().getReadOnly())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("lora-0", "lora-adapters", true),
                        org.assertj.core.groups.Tuple.tuple("lora-1", "team-b-adapters", true));
        Container vllm = pod.getContainers().get(0);
        assertThat(vllm.getVolumeMounts()).filteredOn(m -> m.getName().startsWith("lora-"))
                .extracting(m -> m.getName(), m -> m.getMountPath(), m -> m.getReadOnly())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("lora-0", "/lora-adapters/lora-adapters", true),
                        org.assertj.core.groups.Tuple.tuple("lora-1", "/lora-adapters/team-b-adapters", true));
        assertThat(vllm.getArgs()).as("an adapter at the claim's root").contains("sql-coder=/lora-adapters/team-b-adapters");
    }

    @Test
    void theModelCachesClaimIsMountedAgainReadOnlyNotAddedAsASecondVolume() {
        ModelDeployment md = SampleModelDeployments.withLora("ns");
        md.getSpec().setModelCache(new ModelCacheSpec("lora-adapters", null, null));
        PodSpec pod = pod(md);

        assertThat(pod.getVolumes()).extracting(Volume::getName).containsExactly("dshm", "model-cache");
        assertThat(pod.getContainers().get(0).getVolumeMounts()).extracting(m -> m.getName(), m -> m.getMountPath(), m -> m.getReadOnly())
                .contains(org.assertj.core.groups.Tuple.tuple("model-cache", "/root/.cache/huggingface", null),
                        org.assertj.core.groups.Tuple.tuple("model-cache", "/lora-adapters/lora-adapters", true));
    }

    @Test
    void leftOutLimitsAreVllmsDefaultsAndRuntimeUpdatingAloneNeedsNoStaticAdapter() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.getSpec().setLora(new LoraSpec(List.of(LoraAdapterSpec.fromHuggingFace("sql", "org/sql-lora")), null, null, null, null));
        Container vllm = container(md);
        assertThat(vllm.getArgs()).containsSubsequence("--enable-lora", "--lora-modules", "sql=org/sql-lora", "--max-loras", "1",
                "--max-lora-rank", "16").doesNotContain("--max-cpu-loras");
        assertThat(vllm.getEnv()).noneMatch(e -> e.getName().equals("VLLM_ALLOW_RUNTIME_LORA_UPDATING"));
        assertThat(pod(md).getVolumes()).noneMatch(v -> v.getName().startsWith("lora-"));

        md.getSpec().setLora(new LoraSpec(null, 4, null, null, true));
        vllm = container(md);
        assertThat(vllm.getArgs()).contains("--enable-lora").doesNotContain("--lora-modules").containsSubsequence("--max-loras", "4");
        assertThat(vllm.getEnv()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("VLLM_ALLOW_RUNTIME_LORA_UPDATING"));
    }

    @Test
    void theFlagsComeBeforeExtraArgsAndWithoutLoraNothingChanges() {
        ModelDeployment md = SampleModelDeployments.withLora("ns");
        md.getSpec().setExtraArgs(List.of("--kv-cache-dtype", "fp8"));
        List<String> args = container(md).getArgs();
        assertThat(args.subList(args.size() - 2, args.size())).containsExactly("--kv-cache-dtype", "fp8");

        Container plain = container(SampleModelDeployments.qwenDp4("ns"));
        assertThat(plain.getArgs()).noneMatch(a -> a.contains("lora"));
        assertThat(plain.getVolumeMounts()).extracting(m -> m.getName()).containsExactly("dshm", "model-cache");
    }

    @Test
    void simulatedReplicasGetTheSameFlagsAndVariableAndMountNothing() {
        ModelDeployment md = SampleModelDeployments.simulated("ns", 2);
        md.getSpec().setLora(SampleModelDeployments.withLora("ns").getSpec().getLora());
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), DEFAULTS);
        Container sim = container(md);

        assertThat(sim.getArgs()).containsSubsequence(spec.lora().orElseThrow().args().toArray(String[]::new));
        assertThat(sim.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("VLLM_ALLOW_RUNTIME_LORA_UPDATING");
            assertThat(e.getValue()).isEqualTo("True");
        });
        assertThat(pod(md).getVolumes()).as("the simulator reads no weights").noneMatch(v -> v.getName().startsWith("lora-"));
    }

    @Test
    void namesMustBeUniqueAndNotTheServedModelName() {
        assertRefused(md -> adapters(md).add(LoraAdapterSpec.fromHuggingFace("py-coder", "org/other")),
                "spec.lora.adapters[3].name 'py-coder' is taken by an earlier adapter: adapter names are model names and must be unique");
        assertRefused(md -> adapters(md).add(LoraAdapterSpec.fromHuggingFace("Qwen/Qwen3-4B-Instruct-2507", "org/other")),
                "spec.lora.adapters[3].name 'Qwen/Qwen3-4B-Instruct-2507' is the base model's served name: requests for it could not "
                        + "say whether they mean the model or the adapter; rename the adapter");
        assertRefused(md -> {
            md.getSpec().setServedModelName("qwen");
            adapters(md).get(0).setName("qwen");
        }, "spec.lora.adapters[0].name 'qwen' is the base model's served name: requests for it could not say whether they mean the "
                + "model or the adapter; rename the adapter");
        ModelDeployment renamed = SampleModelDeployments.withLora("ns");
        renamed.getSpec().setServedModelName("qwen");
        adapters(renamed).get(0).setName("Qwen/Qwen3-4B-Instruct-2507");
        assertThat(EffectiveSpec.of(renamed.getSpec(), DEFAULTS).lora()).as("the model id is not served once servedModelName is set")
                .isPresent();
    }

    @Test
    void eachAdapterNeedsANameAndExactlyOneSourceOfTheRightShape() {
        assertRefused(md -> adapters(md).get(1).setName(null),
                "spec.lora.adapters[1].name is required: the model name clients use for the adapter");
        assertRefused(md -> adapters(md).get(1).setName("py=coder"),
                "spec.lora.adapters[1].name must be letters, digits and . _ - / (starting with a letter or digit), got 'py=coder'");
        assertRefused(md -> adapters(md).get(1).setHuggingFace("org/py-coder"),
                "spec.lora.adapters[1] needs exactly one source: huggingFace (a repository id) or volume (claimName and path), not both");
        assertRefused(md -> adapters(md).get(1).setVolume(null),
                "spec.lora.adapters[1] needs exactly one source: huggingFace (a repository id) or volume (claimName and path)");
        assertRefused(md -> adapters(md).get(2).setHuggingFace("org/a,b"),
                "spec.lora.adapters[2].huggingFace must be a repository id such as org/adapter, got 'org/a,b'");
        assertRefused(md -> adapters(md).get(0).getVolume().setClaimName(" "),
                "spec.lora.adapters[0].volume.claimName is required: an existing PersistentVolumeClaim");
        for (String path : List.of("../other", "/etc", "a//b", "adapters/.hidden")) {
            assertRefused(md -> adapters(md).get(0).getVolume().setPath(path), "spec.lora.adapters[0].volume.path must be a relative "
                    + "directory inside the claim (segments of letters, digits and . _ -, none starting with a dot), got '" + path + "'");
        }
    }

    @Test
    void theLimitsAreVllmsAndMaxCpuLorasIsAtLeastMaxLoras() {
        assertRefused(md -> md.getSpec().getLora().setMaxLoras(0), "spec.lora.maxLoras must be at least 1, got 0");
        assertRefused(md -> md.getSpec().getLora().setMaxLoraRank(48),
                "spec.lora.maxLoraRank must be one of [1, 8, 16, 32, 64, 128, 256, 320, 512] (vLLM's max_lora_rank), got 48");
        assertRefused(md -> md.getSpec().getLora().setMaxCpuLoras(1), "spec.lora.maxCpuLoras (1) must be at least spec.lora.maxLoras (2): "
                + "vLLM keeps every adapter of a batch in CPU memory too");
        assertRefused(md -> {
            md.getSpec().getLora().setAdapters(null);
            md.getSpec().getLora().setRuntimeUpdating(false);
        }, "spec.lora has no adapters and runtimeUpdating is off, so no adapter could ever be served: list spec.lora.adapters, or set "
                + "spec.lora.runtimeUpdating: true to load them at run time");
        for (int rank : LoraSpec.MAX_LORA_RANKS) {
            ModelDeployment md = SampleModelDeployments.withLora("ns");
            md.getSpec().getLora().setMaxLoraRank(rank);
            assertThat(container(md).getArgs()).containsSubsequence("--max-lora-rank", Integer.toString(rank));
        }
    }

    @Test
    void flagsAndTheVariableTheSpecSetsMayNotBeGivenAgain() {
        assertRefused(md -> md.getSpec().setExtraArgs(List.of("--max-loras=8")),
                "spec.extraArgs sets --max-loras, which spec.lora sets: remove it from extraArgs and configure spec.lora instead");
        assertRefused(md -> md.getSpec().setExtraArgs(List.of("--lora-modules", "x=/y")), "spec.extraArgs sets --lora-modules");
        assertRefused(md -> md.getSpec().setEnv(List.of(new EnvVarBuilder().withName("VLLM_ALLOW_RUNTIME_LORA_UPDATING").withValue("0").build())),
                "spec.env sets VLLM_ALLOW_RUNTIME_LORA_UPDATING, which spec.lora.runtimeUpdating sets: remove it from env and set "
                        + "spec.lora.runtimeUpdating instead");
        ModelDeployment withoutLora = SampleModelDeployments.qwenDp4("ns");
        withoutLora.getSpec().setExtraArgs(List.of("--enable-lora", "--max-loras", "8"));
        assertThat(container(withoutLora).getArgs()).as("without spec.lora, extraArgs are the user's").contains("--enable-lora");
    }

    private static List<LoraAdapterSpec> adapters(ModelDeployment md) {
        List<LoraAdapterSpec> adapters = new ArrayList<>(md.getSpec().getLora().getAdapters());
        md.getSpec().getLora().setAdapters(adapters);
        return adapters;
    }

    /** The sample with LoRA, changed by {@code change}, is refused with a message starting with {@code message}. */
    private static void assertRefused(Consumer<ModelDeployment> change, String message) {
        ModelDeployment md = SampleModelDeployments.withLora("ns");
        change.accept(md);
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    private PodSpec pod(ModelDeployment md) {
        return statefulSets.desired(md).getSpec().getTemplate().getSpec();
    }

    private Container container(ModelDeployment md) {
        return pod(md).getContainers().get(0);
    }
}
