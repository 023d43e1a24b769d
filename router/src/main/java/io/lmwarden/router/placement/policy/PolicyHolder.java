package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.config.SpillThreshold;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Logger;

/** The policy in force and its spill threshold, switchable at run time for A/B tests on a live pool. */
public final class PolicyHolder implements Supplier<PlacementPolicy> {

    private static final Logger LOG = Logger.getLogger(PolicyHolder.class.getName());

    /** The current policy together with the setting it was built from. */
    public record Current(PlacementPolicy policy, SpillThreshold spillThreshold) {
    }

    private final PolicyFactory factory;
    private final AtomicReference<Current> current;

    public PolicyHolder(PolicyFactory factory, String name, SpillThreshold spillThreshold) {
        this.factory = factory;
        this.current = new AtomicReference<>(new Current(factory.create(name, spillThreshold), spillThreshold));
    }

    @Override
    public PlacementPolicy get() {
        return current.get().policy();
    }

    public Current current() {
        return current.get();
    }

    /** Switches policy; an unknown name throws and leaves the current one in force. */
    public Current switchTo(String name, SpillThreshold spillThreshold) {
        Current next = new Current(factory.create(name, spillThreshold), spillThreshold);
        current.set(next);
        LogFields.info(LOG, "policy switched", "policy", name, "spillThreshold", spillThreshold);
        return next;
    }
}
