package io.lmwarden.operator.dependent;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The release of an official vLLM image ({@code …/vllm-openai:vX.Y.Z}), for features older releases do not have
 * ({@link EngineFeature}). Images under other names, digests and tags that are no release number say nothing: they are not checked.
 */
public record VllmImageVersion(int major, int minor, int patch) implements Comparable<VllmImageVersion> {

    private static final Pattern OFFICIAL = Pattern.compile("^(?:.*/)?vllm-openai:v?(\\d+)\\.(\\d+)\\.(\\d+)(?:[^0-9].*)?$");
    private static final Pattern RELEASE = Pattern.compile("^v(\\d+)\\.(\\d+)\\.(\\d+)$");

    static Optional<VllmImageVersion> of(String image) {
        Matcher m = OFFICIAL.matcher(image);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new VllmImageVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
    }

    /** A release tag such as {@code v0.26.0}. */
    static VllmImageVersion parse(String tag) {
        Matcher m = RELEASE.matcher(tag);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a vLLM release tag: " + tag);
        }
        return new VllmImageVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
    }

    /** Whether this release has the feature. */
    boolean has(EngineFeature feature) {
        return compareTo(feature.firstRelease()) >= 0;
    }

    @Override
    public int compareTo(VllmImageVersion other) {
        if (major != other.major) {
            return Integer.compare(major, other.major);
        }
        if (minor != other.minor) {
            return Integer.compare(minor, other.minor);
        }
        return Integer.compare(patch, other.patch);
    }

    @Override
    public String toString() {
        return "v" + major + "." + minor + "." + patch;
    }
}
