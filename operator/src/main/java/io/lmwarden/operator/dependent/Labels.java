package io.lmwarden.operator.dependent;

import java.util.LinkedHashMap;
import java.util.Map;

/** Labels on everything the operator makes, and the selectors derived from them. */
public final class Labels {
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_VALUE = "lm-warden-operator";
    /** Informers of the operator see only objects it made. */
    public static final String MANAGED_BY_SELECTOR = MANAGED_BY + "=" + MANAGED_BY_VALUE;
    public static final String NAME = "app.kubernetes.io/name";
    public static final String INSTANCE = "app.kubernetes.io/instance";
    public static final String COMPONENT = "app.kubernetes.io/component";
    public static final String MODEL_DEPLOYMENT = "lmwarden.io/model-deployment";
    public static final String REPLICA_COMPONENT = "replica";
    public static final String ROUTER_COMPONENT = "router";

    private Labels() {
    }

    /** Pod selector of one component of one ModelDeployment; never changes for a live object. */
    public static Map<String, String> selector(ResourceNames names, String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(MODEL_DEPLOYMENT, names.name());
        labels.put(COMPONENT, component);
        return labels;
    }

    /** Full label set: the selector plus the recommended app.kubernetes.io labels. */
    public static Map<String, String> of(ResourceNames names, String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(NAME, "lm-warden");
        labels.put(INSTANCE, names.name());
        labels.put(MANAGED_BY, MANAGED_BY_VALUE);
        labels.putAll(selector(names, component));
        return labels;
    }
}
