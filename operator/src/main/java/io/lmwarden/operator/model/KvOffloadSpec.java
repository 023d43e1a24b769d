package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * vLLM's host-memory KV tier ({@code --kv-offloading-size}, {@code --kv-offloading-backend}): completed prompt
 * blocks are copied to pinned host memory and loaded back when a prefix returns. The operator sizes the replica
 * pod's memory request and limit to hold it (operator/README.md, "Host-memory KV tier").
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KvOffloadSpec {

    @Required
    @Min(value = 0.0, inclusive = false)
    @Max(65536.0)
    @JsonPropertyDescription("Host memory for offloaded KV blocks, in GiB per replica (vLLM --kv-offloading-size: the total "
            + "across the replica's tensor-parallel ranks; each data-parallel rank has its own). Added to the pod's memory "
            + "request and limit.")
    private Double sizeGiB;

    @Default(Defaults.KV_OFFLOAD_BACKEND)
    @Pattern("^(native|lmcache)$")
    @JsonPropertyDescription("native (vLLM's OffloadingConnector) or lmcache (needs an image with LMCache installed).")
    private String backend;

    public KvOffloadSpec() {
    }

    public KvOffloadSpec(Double sizeGiB, String backend) {
        this.sizeGiB = sizeGiB;
        this.backend = backend;
    }

    public Double getSizeGiB() { return sizeGiB; }
    public void setSizeGiB(Double sizeGiB) { this.sizeGiB = sizeGiB; }
    public String getBackend() { return backend; }
    public void setBackend(String backend) { this.backend = backend; }
}
