package io.lmwarden.operator.dependent;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The release of an official vLLM image ({@code …/vllm-openai:vX.Y.Z}), for flags older releases do not have.
 * Images under other names, digests and tags that are no release number say nothing: they are not checked.
 */
record VllmImageVersion(int major, int minor, int patch) {

    private static final Pattern OFFICIAL = Pattern.compile("^(?:.*/)?vllm-openai:v?(\\d+)\\.(\\d+)\\.(\\d+)(?:[^0-9].*)?$");

    static Optional<VllmImageVersion> of(String image) {
        Matcher m = OFFICIAL.matcher(image);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new VllmImageVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
    }

    /** {@code --kv-offloading-size} and {@code --kv-offloading-backend}: vLLM PR #27621, merged after v0.11.0. */
    boolean hasKvOffloadingFlags() {
        return compareTo(0, 11, 0) > 0;
    }

    private int compareTo(int otherMajor, int otherMinor, int otherPatch) {
        if (major != otherMajor) {
            return Integer.compare(major, otherMajor);
        }
        if (minor != otherMinor) {
            return Integer.compare(minor, otherMinor);
        }
        return Integer.compare(patch, otherPatch);
    }
}
