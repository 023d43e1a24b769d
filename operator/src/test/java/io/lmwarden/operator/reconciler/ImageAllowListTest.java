package io.lmwarden.operator.reconciler;

import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.dependent.EffectiveSpec;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ImageAllowListTest {
    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("registry.example/lmw/router:1.0", "IfNotPresent");

    @Test
    void noPatternsAllowEveryImage() {
        assertThat(ImageAllowList.parse("").allowsAll()).isTrue();
        assertThat(ImageAllowList.parse(" , ").allowsAll()).isTrue();
        assertThat(ImageAllowList.allowAll().allows("evil.example/miner:latest")).isTrue();
        assertThat(ImageAllowList.allowAll().rejection(spec(withImage("evil.example/miner:1")), DEFAULTS)).isEmpty();
    }

    @Test
    void aStarMatchesAnyCharactersAndAPlainPatternTheWholeImage() {
        ImageAllowList list = ImageAllowList.parse("registry.example/ml/*, vllm/vllm-openai:v0.11.*,docker.io/lmsysorg/sglang:v0.5.0");
        assertThat(list.patterns()).containsExactly("registry.example/ml/*", "vllm/vllm-openai:v0.11.*", "docker.io/lmsysorg/sglang:v0.5.0");
        assertThat(list.allows("registry.example/ml/vllm:v1")).isTrue();
        assertThat(list.allows("registry.example/ml/team/vllm@sha256:" + "a".repeat(64))).as("* crosses /").isTrue();
        assertThat(list.allows("registry.example/mlx/vllm:v1")).isFalse();
        assertThat(list.allows("registry.example.evil/ml/vllm:v1")).isFalse();
        assertThat(list.allows("vllm/vllm-openai:v0.11.0")).isTrue();
        assertThat(list.allows("vllm/vllm-openai:v0.12.0")).isFalse();
        assertThat(list.allows("vllm/vllm-openai-evil:v0.11.0")).isFalse();
        assertThat(list.allows("docker.io/lmsysorg/sglang:v0.5.0")).isTrue();
        assertThat(list.allows("docker.io/lmsysorg/sglang:v0.5.0-evil")).as("no * means the whole image").isFalse();
        assertThat(ImageAllowList.parse("a.b/c:1").allows("aXb/c:1")).as("dots are literal").isFalse();
    }

    @Test
    void theRejectionNamesTheFieldTheImageAndThePatterns() {
        ImageAllowList list = ImageAllowList.parse("registry.example/ml/*");
        assertThat(list.rejection(spec(withImage("registry.example/ml/vllm:v1")), DEFAULTS)).isEmpty();
        assertThat(list.rejection(spec(SampleModelDeployments.qwenDp4("llm")), DEFAULTS)).as("the default vLLM image is checked too")
                .hasValueSatisfying(m -> assertThat(m).contains("spec.image 'vllm/vllm-openai:v0.26.0' is not allowed",
                        "registry.example/ml/*", "operator.allowedImages"));
    }

    @Test
    void theOperatorsRouterImageIsAlwaysAllowedAndAnotherOneIsChecked() {
        ImageAllowList list = ImageAllowList.parse("registry.example/ml/*");
        ModelDeployment simulated = SampleModelDeployments.simulated("llm", 2);
        assertThat(list.rejection(spec(simulated), DEFAULTS)).as("a simulator runs the router image, not spec.image").isEmpty();
        simulated.getSpec().setRouter(new io.lmwarden.operator.model.RouterSpec());
        simulated.getSpec().getRouter().setImage("evil.example/router:1");
        assertThat(list.rejection(spec(simulated), DEFAULTS)).hasValueSatisfying(m -> assertThat(m).startsWith("spec.router.image 'evil.example/router:1'"));
    }

    @Test
    void blankPatternsAreRefused() {
        assertThatThrownBy(() -> new ImageAllowList(java.util.List.of(" "))).hasMessageContaining("blank");
    }

    private static ModelDeployment withImage(String image) {
        ModelDeployment md = SampleModelDeployments.qwenDp4("llm");
        md.getSpec().setImage(image);
        return md;
    }

    private static EffectiveSpec spec(ModelDeployment md) {
        return EffectiveSpec.of(md.getSpec(), DEFAULTS);
    }
}
