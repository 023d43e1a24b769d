package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;

/** The volume holding Hugging Face downloads: an existing claim (shared by all replicas, so
 *  ReadWriteMany or ReadOnlyMany with weights pre-loaded) or a per-pod emptyDir. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.claimName) && has(self.sizeLimit))",
        message = "set either claimName (an existing PersistentVolumeClaim) or sizeLimit (an emptyDir), not both")
public class ModelCacheSpec {

    @JsonPropertyDescription("Name of an existing PersistentVolumeClaim in the same namespace.")
    private String claimName;

    @JsonPropertyDescription("Size limit of the emptyDir used when no claimName is given.")
    private Quantity sizeLimit;

    @Default(Defaults.MODEL_CACHE_MOUNT_PATH)
    @JsonPropertyDescription("Mount path in the vLLM container (vLLM's HF cache by default).")
    private String mountPath;

    public ModelCacheSpec() {
    }

    public ModelCacheSpec(String claimName, Quantity sizeLimit, String mountPath) {
        this.claimName = claimName;
        this.sizeLimit = sizeLimit;
        this.mountPath = mountPath;
    }

    public String getClaimName() { return claimName; }
    public void setClaimName(String claimName) { this.claimName = claimName; }
    public Quantity getSizeLimit() { return sizeLimit; }
    public void setSizeLimit(Quantity sizeLimit) { this.sizeLimit = sizeLimit; }
    public String getMountPath() { return mountPath; }
    public void setMountPath(String mountPath) { this.mountPath = mountPath; }
}
