package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** An adapter's directory on an existing PersistentVolumeClaim; every replica mounts the claim read-only, so a claim shared by
 *  several replicas must be ReadOnlyMany or ReadWriteMany (as {@code modelCache.claimName}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LoraVolumeSpec {

    @Required
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
    @JsonPropertyDescription("Name of an existing PersistentVolumeClaim in the ModelDeployment's namespace (modelCache.claimName may "
            + "be the same claim).")
    private String claimName;

    @Pattern(PATH_PATTERN)
    @JsonPropertyDescription("Directory of the adapter inside the claim, relative (e.g. adapters/team-coder); left out: the claim's root.")
    private String path;

    /** Relative, segments of letters, digits and {@code . _ -} that do not start with a dot: nothing outside the claim. */
    public static final String PATH_PATTERN = "^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$";

    public LoraVolumeSpec() {
    }

    public LoraVolumeSpec(String claimName, String path) {
        this.claimName = claimName;
        this.path = path;
    }

    public String getClaimName() { return claimName; }
    public void setClaimName(String claimName) { this.claimName = claimName; }
    public String getPath() { return path; }
    public void setPath(String path) { this.path = path; }
}
