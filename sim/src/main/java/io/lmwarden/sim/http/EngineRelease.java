package io.lmwarden.sim.http;

import java.util.regex.Pattern;

/**
 * The vLLM release a simulated replica says it runs, as {@code GET /version} answers it. vLLM serves
 * {@code {"version": VLLM_VERSION}} (vllm-project/vllm, {@code vllm/entrypoints/serve/instrumentator/basic.py},
 * {@code show_version}, at commit dcbf200475bbc0dc7a464eb5531893298a400f49; earlier in
 * {@code vllm/entrypoints/openai/api_server.py}). A client reads it to tell which engine features it may rely on, so
 * tests set it to an older release to see what a client does then.
 *
 * @param value a version string as vLLM prints one ({@code 0.26.0}, {@code 0.11.1rc2}, {@code 0.12.0.dev5+g1a2b3c})
 */
public record EngineRelease(String value) {

    /** Initialized first: the constants below are checked against it. */
    private static final Pattern VERSION = Pattern.compile("[0-9][0-9A-Za-z.+_-]*|none");

    /** The release the operator runs by default. */
    public static final EngineRelease DEFAULT = new EngineRelease("0.26.0");
    /** No {@code /version} at all (404), as an engine that is not vLLM answers. */
    public static final EngineRelease NONE = new EngineRelease("none");

    public EngineRelease {
        if (value == null || !VERSION.matcher(value).matches()) {
            throw new IllegalArgumentException("engine version must look like vLLM's (e.g. 0.26.0), or be none, got: " + value);
        }
    }

    /** Whether {@code GET /version} is served at all. */
    public boolean served() {
        return !value.equals(NONE.value);
    }

    /** The body of {@code GET /version}. */
    public String json() {
        return "{\"version\":\"" + value + "\"}";
    }
}
