package io.lmwarden.operator.dependent;

/**
 * Settings of the operator installation that ModelDeployments inherit, chiefly the router image
 * (which also holds the simulator). The chart sets them through the operator's environment ({@link #ROUTER_IMAGE_ENV},
 * {@link #IMAGE_PULL_POLICY_ENV}), which OperatorMain reads as option defaults.
 */
public record OperatorDefaults(String routerImage, String imagePullPolicy) {
    public static final String ROUTER_IMAGE_ENV = "LMW_ROUTER_IMAGE";
    public static final String IMAGE_PULL_POLICY_ENV = "LMW_ROUTER_IMAGE_PULL_POLICY";
    public static final String BUILT_IN_ROUTER_IMAGE = "ghcr.io/lm-warden/router:0.1.0";

    public OperatorDefaults {
        if (routerImage == null || routerImage.isBlank()) {
            throw new IllegalArgumentException("router image must be set");
        }
        if (imagePullPolicy == null || imagePullPolicy.isBlank()) {
            imagePullPolicy = "IfNotPresent";
        }
    }

    public static OperatorDefaults builtIn() {
        return new OperatorDefaults(BUILT_IN_ROUTER_IMAGE, "IfNotPresent");
    }
}
