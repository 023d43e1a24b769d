package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.IntOrString;

import java.math.BigDecimal;

/**
 * vLLM's host-memory KV tier ({@code --kv-offloading-size}, {@code --kv-offloading-backend}): completed prompt
 * blocks are copied to pinned host memory and loaded back when a prefix returns. The operator sizes the replica
 * pod's memory request and limit to hold it (operator/README.md, "Host-memory KV tier"); {@code sizeGiB: auto}
 * lets it choose the size from the nodes (docs/host-kv-tier-sizing.md).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KvOffloadSpec {
    public static final String AUTO = "auto";

    @Required
    @ValidationRule(value = "type(self) == int ? self > 0 : (self == 'auto' || double(self) > 0.0)",
            message = "sizeGiB must be 'auto' or a positive number of GiB")
    @JsonPropertyDescription("Host memory for offloaded KV blocks, in GiB per replica (vLLM --kv-offloading-size: the total "
            + "across the replica's tensor-parallel ranks; each data-parallel rank has its own), added to the pod's memory "
            + "request and limit; an integer, a decimal string such as \"2.5\", or 'auto': the operator sizes it from the "
            + "allocatable memory per GPU of the smallest node the pod can be scheduled on (docs/host-kv-tier-sizing.md).")
    private IntOrString sizeGiB;

    @Default(Defaults.KV_OFFLOAD_BACKEND)
    @Pattern("^(native|lmcache)$")
    @JsonPropertyDescription("native (vLLM's OffloadingConnector) or lmcache (needs an image with LMCache installed).")
    private String backend;

    public KvOffloadSpec() {
    }

    public KvOffloadSpec(IntOrString sizeGiB, String backend) {
        this.sizeGiB = sizeGiB;
        this.backend = backend;
    }

    /** A fixed size: whole GiB as an integer, a fraction as a decimal string (the schema's int-or-string has no floats). */
    public KvOffloadSpec(Double sizeGiB, String backend) {
        this(size(sizeGiB), backend);
    }

    public static KvOffloadSpec auto(String backend) {
        return new KvOffloadSpec(new IntOrString(AUTO), backend);
    }

    private static IntOrString size(Double gib) {
        if (gib == null) {
            return null;
        }
        if (gib.isNaN() || gib.isInfinite()) {
            return new IntOrString(gib.toString());
        }
        BigDecimal exact = BigDecimal.valueOf(gib).stripTrailingZeros();
        return exact.scale() <= 0 && exact.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0
                ? new IntOrString(exact.intValueExact()) : new IntOrString(exact.toPlainString());
    }

    public IntOrString getSizeGiB() { return sizeGiB; }
    public void setSizeGiB(IntOrString sizeGiB) { this.sizeGiB = sizeGiB; }
    public String getBackend() { return backend; }
    public void setBackend(String backend) { this.backend = backend; }
}
