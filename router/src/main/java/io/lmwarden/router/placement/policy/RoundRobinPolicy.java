package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.PlacementRequest;
import java.util.concurrent.atomic.AtomicLong;

/** Each request to the next replica in id order. */
public final class RoundRobinPolicy implements PlacementPolicy {

    public static final String NAME = "round-robin";

    private final AtomicLong next = new AtomicLong();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Placement place(PlacementRequest request) {
        int i = (int) Math.floorMod(next.getAndIncrement(), (long) request.candidates().size());
        return new Placement(request.candidates().get(i), Decision.NEW, "round-robin");
    }
}
