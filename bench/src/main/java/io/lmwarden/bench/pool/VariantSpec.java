package io.lmwarden.bench.pool;

import io.lmwarden.bench.settings.RunPlan;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.RouterConfig;

/**
 * What one {@code --policies} entry asks of the router: {@code default} (the router's out-of-the-box
 * configuration, whatever it is), a policy name (that policy, admission off), {@code POLICY+admission}, or
 * {@code ceiling} (affinity with admission off, on replicas whose KV cache never evicts: {@link SimulatedTarget} enlarges
 * it).
 */
public record VariantSpec(String label, String policy, Boolean admission) {

    public static final String DEFAULT = "default";
    /** The upper bound: the same workload on KV caches large enough that nothing is evicted. */
    public static final String CEILING = RunPlan.CEILING;
    private static final String ADMISSION_SUFFIX = "+admission";

    public static VariantSpec parse(String label) {
        if (label.equals(DEFAULT)) {
            return new VariantSpec(label, null, null);
        }
        if (label.equals(CEILING)) {
            return new VariantSpec(label, "affinity", false);
        }
        if (label.endsWith(ADMISSION_SUFFIX)) {
            return new VariantSpec(label, label.substring(0, label.length() - ADMISSION_SUFFIX.length()), true);
        }
        return new VariantSpec(label, label, false);
    }

    public boolean ceiling() {
        return label.equals(CEILING);
    }

    /** The router configuration for this variant on top of {@code base} (defaults plus any --router-set). */
    public RouterConfig apply(RouterConfig base) {
        if (policy == null) {
            return base;
        }
        return base.with(PlacementSettings.POLICY, policy).with(AdmissionSettings.ADMISSION, admission);
    }

    /** The policy a running router is switched to; {@code default} is the router's documented default. */
    public String policyForRemote() {
        return policy != null ? policy : PlacementSettings.POLICY.defaultValue();
    }

    public boolean admissionForRemote() {
        return admission != null ? admission : AdmissionSettings.ADMISSION.defaultValue();
    }
}
