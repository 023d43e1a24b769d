package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;

/** A key of a Secret in the ModelDeployment's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeySpec {

    @Required
    @JsonPropertyDescription("Secret name.")
    private String name;

    @Default(Defaults.HF_TOKEN_KEY)
    @JsonPropertyDescription("Key in the Secret holding the token.")
    private String key;

    public SecretKeySpec() {
    }

    public SecretKeySpec(String name, String key) {
        this.name = name;
        this.key = key;
    }

    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
    public String getKey() { return key; }
    public void setKey(String key) { this.key = key; }
}
