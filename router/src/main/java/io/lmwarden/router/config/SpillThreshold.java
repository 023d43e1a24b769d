package io.lmwarden.router.config;

/**
 * How many requests may be in flight on a session's home replica before its next step spills
 * elsewhere. {@code auto} follows the engine: a quarter of its max_num_seqs, the value the
 * published measurement used (8 for max_num_seqs 32).
 */
public record SpillThreshold(boolean auto, int fixed) {

    public static final SpillThreshold AUTO = new SpillThreshold(true, 0);
    private static final String RULE = "must be 'auto' or an integer >= 1";

    public SpillThreshold {
        if (!auto && fixed < 1) {
            throw new IllegalArgumentException("spillThreshold " + RULE + ", got " + fixed);
        }
    }

    public static SpillThreshold fixed(int n) {
        return new SpillThreshold(false, n);
    }

    /** As people write it; the parser of {@link PlacementSettings#SPILL_THRESHOLD}, whose message it completes. */
    public static SpillThreshold parse(String text) {
        String t = text.trim();
        if (t.equalsIgnoreCase("auto")) {
            return AUTO;
        }
        int n;
        try {
            n = Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(RULE);
        }
        if (n < 1) {
            throw new IllegalArgumentException(RULE);
        }
        return fixed(n);
    }

    /** The threshold in effect for an engine with the given max_num_seqs. */
    public int resolve(int maxNumSeqs) {
        return auto ? Math.max(1, maxNumSeqs / 4) : fixed;
    }

    @Override
    public String toString() {
        return auto ? "auto" : Integer.toString(fixed);
    }
}
