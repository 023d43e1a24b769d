package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/** Replaces vLLM with LM Warden's simulator: same HTTP API and metrics, no GPU. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SimulatorSpec {

    @Default("false")
    @JsonPropertyDescription("Run the simulator (from the router image) instead of vLLM; replica pods request no GPU.")
    private Boolean enabled;

    @Default(Defaults.SIMULATOR_PROFILE)
    @Pattern("^[a-z0-9][a-z0-9-]*$")
    @JsonPropertyDescription("Simulator calibration profile, e.g. a4000-qwen3-4b.")
    private String profile;

    public SimulatorSpec() {
    }

    public SimulatorSpec(Boolean enabled, String profile) {
        this.enabled = enabled;
        this.profile = profile;
    }

    public Boolean getEnabled() { return enabled; }
    public void setEnabled(Boolean enabled) { this.enabled = enabled; }
    public String getProfile() { return profile; }
    public void setProfile(String profile) { this.profile = profile; }
}
