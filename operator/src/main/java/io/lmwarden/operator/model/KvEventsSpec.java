package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/**
 * vLLM's KV cache events, so the router learns which blocks each replica holds. With them on, every replica
 * publishes on ZMQ (port {@code kv-events}, replay on {@code kv-replay}) and the router subscribes to the
 * endpoints it finds in the replica Service's EndpointSlices.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KvEventsSpec {

    @Default("false")
    @JsonPropertyDescription("Replicas publish KV cache events (vLLM --kv-events-config) on container ports kv-events (5557) "
            + "and kv-replay (5558); the router subscribes to them.")
    private Boolean enabled;

    @Default(Defaults.PREFIX_CACHING_HASH_ALGO)
    @Pattern("^(sha256|sha256_cbor|xxhash|xxhash_cbor)$")
    @JsonPropertyDescription("vLLM --prefix-caching-hash-algo of every replica: sha256 (vLLM's default), sha256_cbor, xxhash, "
            + "xxhash_cbor (the xxhash ones need the xxhash package in the image).")
    private String hashAlgorithm;

    public KvEventsSpec() {
    }

    public KvEventsSpec(Boolean enabled, String hashAlgorithm) {
        this.enabled = enabled;
        this.hashAlgorithm = hashAlgorithm;
    }

    public Boolean getEnabled() { return enabled; }
    public void setEnabled(Boolean enabled) { this.enabled = enabled; }
    public String getHashAlgorithm() { return hashAlgorithm; }
    public void setHashAlgorithm(String hashAlgorithm) { this.hashAlgorithm = hashAlgorithm; }
}
