package io.lmwarden.operator.dependent;

import io.lmwarden.operator.model.Defaults;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flags the operator writes for the default image are flags vLLM's parser has, so that a renamed flag fails the build
 * rather than a pod. The flags are captured from vLLM's source into {@code src/test/resources/vllm/serve-flags.txt}; its
 * header says which files and commits (and why they are not yet the v0.26.0 tag's own).
 */
class EngineArgsOfDefaultImageTest {

    @Test
    void everyFlagOfAFullyFeaturedModelDeploymentIsOneVllmsParserHas() throws IOException {
        Set<String> known = serveFlags();
        assertThat(known).as("the capture has vLLM's whole parser, not a hand-picked few").hasSizeGreaterThan(150)
                .contains("--served-model-name", "--host", "--port", "--api-key", "--lora-modules", "--enable-lora", "--max-loras",
                        "--max-lora-rank", "--max-cpu-loras");

        ModelDeployment md = EngineFeatureTest.everything(null);
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn());
        assertThat(spec.vllmImage()).isEqualTo(Defaults.VLLM_IMAGE);
        List<String> flags = renderedFlags(new ReplicaPodTemplate(spec, OperatorDefaults.builtIn(), ResourceNames.of(md)).vllmArgs());

        assertThat(flags).as("a fully featured ModelDeployment renders every option").contains("--served-model-name", "--tensor-parallel-size",
                "--data-parallel-size", "--max-num-seqs", "--max-model-len", "--gpu-memory-utilization", "--kv-offloading-size",
                "--kv-offloading-backend", "--kv-events-config", "--prefix-caching-hash-algo", "--scheduling-policy",
                "--enable-lora", "--lora-modules", "--max-loras", "--max-lora-rank", "--max-cpu-loras",
                "--enable-prompt-tokens-details", "--enable-prefix-caching", "--host", "--port");
        assertThat(flags).as("flags vLLM's parser (" + Defaults.VLLM_IMAGE + ") does not have").allSatisfy(f -> assertThat(known).contains(f));
    }

    /** The flags among vllm serve's arguments, without values given as {@code --flag=value}. */
    static List<String> renderedFlags(List<String> args) {
        return args.stream().filter(a -> a.startsWith("--")).map(a -> a.contains("=") ? a.substring(0, a.indexOf('=')) : a).toList();
    }

    static Set<String> serveFlags() throws IOException {
        try (InputStream in = EngineArgsOfDefaultImageTest.class.getResourceAsStream("/vllm/serve-flags.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(l -> l.startsWith("--")).collect(Collectors.toSet());
        }
    }
}
