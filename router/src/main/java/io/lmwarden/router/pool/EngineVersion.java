package io.lmwarden.router.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The vLLM release an endpoint runs, as its {@code GET /version} answered ({@code {"version": "0.26.0"}}: vLLM's
 * {@code show_version}, vllm-project/vllm {@code vllm/entrypoints/serve/instrumentator/basic.py} at
 * dcbf200475bbc0dc7a464eb5531893298a400f49), or {@link #UNKNOWN} when it has not answered one (not asked yet, 404 from
 * an engine that is not vLLM, an error). Only its release numbers are compared: a release candidate or a development
 * build of 0.12.0 counts as 0.12.0 (features land before the release is cut).
 *
 * @param text the version as the engine printed it, or {@code "unknown"}
 */
public record EngineVersion(String text, int major, int minor, int patch) implements Comparable<EngineVersion> {

    public static final EngineVersion UNKNOWN = new EngineVersion("unknown", -1, -1, -1);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RELEASE = Pattern.compile("v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");

    /** A release as written ({@code 0.26.0}, {@code 0.11.1rc2}); {@link #UNKNOWN} when it does not start with release numbers. */
    public static EngineVersion of(String text) {
        if (text == null) {
            return UNKNOWN;
        }
        Matcher m = RELEASE.matcher(text.trim());
        if (!m.matches()) {
            return UNKNOWN;
        }
        try {
            return new EngineVersion(text.trim(), Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
        } catch (NumberFormatException e) {
            return UNKNOWN;
        }
    }

    /** What {@code GET /version} answered: its {@code version} field, or {@link #UNKNOWN} for anything else. */
    public static EngineVersion parseResponse(String body) {
        try {
            JsonNode v = JSON.readTree(body).path("version");
            return v.isTextual() ? of(v.asText()) : UNKNOWN;
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    public boolean known() {
        return major >= 0;
    }

    /** Whether this release is {@code release} or later; an unknown version is never said to be older. */
    public boolean atLeast(EngineVersion release) {
        return !known() || compareTo(release) >= 0;
    }

    @Override
    public int compareTo(EngineVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return text;
    }
}
