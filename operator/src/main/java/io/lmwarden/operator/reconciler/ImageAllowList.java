package io.lmwarden.operator.reconciler;

import io.lmwarden.operator.dependent.EffectiveSpec;
import io.lmwarden.operator.dependent.OperatorDefaults;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Images a ModelDeployment may run, set by whoever installs the operator. Whoever can create a
 * ModelDeployment runs its image with the namespace's Secrets it names and a pod in that namespace,
 * so an installation can restrict the images to the registries it trusts.
 *
 * <p>A pattern is matched against the whole image reference as written in the spec; {@code *} matches
 * any run of characters, including {@code /} and {@code :}, so {@code registry.example/ml/*} is a
 * prefix and {@code vllm/vllm-openai:v0.11.*} a glob. A pattern without {@code *} must equal the image.
 * No patterns allows every image (the default). The operator's own router image is always allowed.
 */
public record ImageAllowList(List<String> patterns) {

    public ImageAllowList {
        patterns = List.copyOf(patterns);
        for (String p : patterns) {
            if (p.isBlank()) {
                throw new IllegalArgumentException("an allowed-image pattern must not be blank");
            }
        }
    }

    public static ImageAllowList allowAll() {
        return new ImageAllowList(List.of());
    }

    /** Comma-separated patterns, blanks around them ignored; empty allows all. */
    public static ImageAllowList parse(String csv) {
        if (csv == null || csv.isBlank()) {
            return allowAll();
        }
        return new ImageAllowList(Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
    }

    public boolean allowsAll() {
        return patterns.isEmpty();
    }

    public boolean allows(String image) {
        return allowsAll() || patterns.stream().anyMatch(p -> glob(p).matcher(image).matches());
    }

    /** Why this spec may not run, naming the field and the patterns; empty when every image it runs is allowed. */
    public Optional<String> rejection(EffectiveSpec spec, OperatorDefaults defaults) {
        if (allowsAll()) {
            return Optional.empty();
        }
        Map<String, String> images = new LinkedHashMap<>(); // field -> image
        if (!spec.simulated()) {
            images.put("spec.image", spec.vllmImage());
        }
        if (!spec.router().image().equals(defaults.routerImage())) {
            images.put("spec.router.image", spec.router().image());
        }
        return images.entrySet().stream()
                .filter(e -> !allows(e.getValue()))
                .findFirst()
                .map(e -> e.getKey() + " '" + e.getValue() + "' is not allowed by this operator's image allow-list ("
                        + String.join(", ", patterns) + "): use an image matching one of these patterns, or ask the operator's "
                        + "administrator to add it (operator flag --allowed-images, chart value operator.allowedImages)");
    }

    private static Pattern glob(String pattern) {
        return Pattern.compile(Arrays.stream(pattern.split("\\*", -1)).map(Pattern::quote).collect(Collectors.joining(".*")));
    }
}
