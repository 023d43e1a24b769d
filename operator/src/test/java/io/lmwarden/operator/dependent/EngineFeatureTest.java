package io.lmwarden.operator.dependent;

import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.Defaults;
import io.lmwarden.operator.model.KvEventsSpec;
import io.lmwarden.operator.model.KvOffloadSpec;
import io.lmwarden.operator.model.LoraAdapterSpec;
import io.lmwarden.operator.model.LoraSpec;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The per-feature table of vLLM releases ({@link EngineFeature}): a spec that uses a feature with an official image older
 * than the feature's first release is refused with a message naming both; the default image has every feature; and
 * operator/README.md's compatibility table is the enum's.
 */
class EngineFeatureTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();
    static final String TABLE_START = "<!-- engine-features:start (generated from EngineFeature; EngineFeatureTest holds it) -->";
    static final String TABLE_END = "<!-- engine-features:end -->";

    @Test
    void eachFeatureIsRefusedOnAnImageBeforeItsFirstReleaseAndAcceptedFromIt() {
        assertRefusedBefore(EngineFeature.KV_OFFLOADING_FLAGS, "spec.kvOffload",
                md -> md.getSpec().setKvOffload(new KvOffloadSpec(8.0, null)));
        assertRefusedBefore(EngineFeature.KV_EVENTS, "spec.router.kvEvents",
                md -> md.getSpec().getRouter().setKvEvents(new KvEventsSpec(true, null)));
        assertRefusedBefore(EngineFeature.SCHEDULING_POLICY_PRIORITY, "spec.schedulingPolicy: priority",
                md -> md.getSpec().setSchedulingPolicy("priority"));
        assertRefusedBefore(EngineFeature.LORA_ADAPTERS, "spec.lora", md -> md.getSpec().setLora(oneAdapter()));
    }

    @Test
    void theDefaultImageHasEveryFeatureAndUnofficialImagesAreNotJudged() {
        VllmImageVersion defaultRelease = VllmImageVersion.of(Defaults.VLLM_IMAGE).orElseThrow();
        assertThat(defaultRelease).hasToString("v0.26.0");
        assertThat(EngineFeature.values()).allSatisfy(f -> assertThat(defaultRelease.has(f)).as(f.humanName()).isTrue());

        ModelDeployment custom = everything("registry.example/ml/vllm:0.6.0");
        assertThat(EffectiveSpec.of(custom.getSpec(), DEFAULTS).schedulingPolicy()).as("a release number under another name says nothing")
                .isEqualTo("priority");
        ModelDeployment simulated = SampleModelDeployments.simulated("ns", 1);
        simulated.getSpec().setImage("vllm/vllm-openai:v0.5.0");
        simulated.getSpec().setSchedulingPolicy("priority");
        assertThat(EffectiveSpec.of(simulated.getSpec(), DEFAULTS).simulated()).as("simulated replicas run no vLLM").isTrue();
    }

    @Test
    void fcfsIsTheDefaultAndWritesNoFlagPriorityWritesOne() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), DEFAULTS);
        assertThat(spec.schedulingPolicy()).isEqualTo("fcfs");
        assertThat(new ReplicaPodTemplate(spec, DEFAULTS, ResourceNames.of(md)).vllmArgs()).doesNotContain("--scheduling-policy");

        md.getSpec().setSchedulingPolicy("priority");
        spec = EffectiveSpec.of(md.getSpec(), DEFAULTS);
        assertThat(new ReplicaPodTemplate(spec, DEFAULTS, ResourceNames.of(md)).vllmArgs()).containsSubsequence("--scheduling-policy", "priority");

        md.getSpec().setSchedulingPolicy("lifo");
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).hasMessage("spec.schedulingPolicy must be fcfs or priority, got 'lifo'");
        md.getSpec().setSchedulingPolicy("priority");
        md.getSpec().setExtraArgs(java.util.List.of("--scheduling-policy=fcfs"));
        assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS)).hasMessageContaining("--scheduling-policy");
    }

    @Test
    void theReadmeTableIsTheEnum() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        assertThat(readme).contains(TABLE_START, TABLE_END);
        String table = readme.substring(readme.indexOf(TABLE_START) + TABLE_START.length(), readme.indexOf(TABLE_END)).strip() + "\n";
        assertThat(table).as("operator/README.md's compatibility table; paste EngineFeature.markdownTable() between the markers")
                .isEqualTo(EngineFeature.markdownTable());
        assertThat(Arrays.stream(EngineFeature.values()).map(EngineFeature::humanName)).doesNotHaveDuplicates();
    }

    private static void assertRefusedBefore(EngineFeature feature, String field, Consumer<ModelDeployment> use) {
        VllmImageVersion first = feature.firstRelease();
        VllmImageVersion before = new VllmImageVersion(first.major(), first.minor() - (first.patch() == 0 ? 1 : 0),
                first.patch() == 0 ? 9 : first.patch() - 1);
        ModelDeployment old = SampleModelDeployments.qwenDp4("ns");
        old.getSpec().setImage("vllm/vllm-openai:" + before);
        use.accept(old);
        assertThatThrownBy(() -> EffectiveSpec.of(old.getSpec(), DEFAULTS)).as(feature.name())
                .hasMessage(field + " needs vLLM's " + feature.humanName() + ", which vLLM has since " + first + "; spec.image is "
                        + "vllm/vllm-openai:" + before + " (" + before + "): set spec.image to vllm/vllm-openai:" + first
                        + " or newer, or leave it out for " + Defaults.VLLM_IMAGE);

        for (String image : new String[]{"vllm/vllm-openai:" + first, "docker.io/vllm/vllm-openai:" + first + "-cu130", null}) {
            ModelDeployment ok = SampleModelDeployments.qwenDp4("ns");
            ok.getSpec().setImage(image);
            use.accept(ok);
            assertThat(EffectiveSpec.of(ok.getSpec(), DEFAULTS)).as(feature.name() + " on " + image).isNotNull();
        }
    }

    /** A ModelDeployment with every engine option the operator renders turned on. */
    static ModelDeployment everything(String image) {
        ModelDeployment md = SampleModelDeployments.qwenDp4("ns");
        md.getSpec().setImage(image);
        md.getSpec().setReplicaLayout(Defaults.LAYOUT_DATA_PARALLEL_SERVER);
        md.getSpec().setMaxModelLen(32768);
        md.getSpec().setGpuMemoryUtilization(0.9);
        md.getSpec().setKvOffload(new KvOffloadSpec(40.0, "native"));
        md.getSpec().getRouter().setKvEvents(new KvEventsSpec(true, "sha256_cbor"));
        md.getSpec().setSchedulingPolicy("priority");
        md.getSpec().setLora(new LoraSpec(List.of(LoraAdapterSpec.fromHuggingFace("sql", "org/sql-lora"),
                LoraAdapterSpec.fromVolume("team", "lora-adapters", "team")), 2, 64, 4, true));
        return md;
    }

    private static LoraSpec oneAdapter() {
        return new LoraSpec(List.of(LoraAdapterSpec.fromHuggingFace("sql", "org/sql-lora")), null, null, null, null);
    }
}
