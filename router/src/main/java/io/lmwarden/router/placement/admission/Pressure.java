package io.lmwarden.router.placement.admission;

/**
 * Hysteresis of revocation (ThunderAgent's marks): paused residents give up their residency only when the residents'
 * blocks exceed {@code actAbove} of a replica's budget, and then down to {@code releaseTo}, so that admission does not
 * revoke one resident per arrival at the edge of the budget.
 */
record Pressure(double actAbove, double releaseTo) {

    static final Pressure DEFAULT = new Pressure(0.95, 0.80);

    boolean acts(long usedBlocks, long budgetBlocks) {
        return usedBlocks > actAbove * budgetBlocks;
    }

    boolean released(long usedBlocks, long budgetBlocks) {
        return usedBlocks <= releaseTo * budgetBlocks;
    }
}
