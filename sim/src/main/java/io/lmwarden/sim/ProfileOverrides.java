package io.lmwarden.sim;

import java.util.Locale;

/**
 * {@code stepBaseMs=22,prefillMsPerToken=0.3}: changes a profile's constants (the simulator's {@code --set}, the
 * bench's {@code --sim-set} and per-replica {@code --sim-replica-set}), to try a calibration or to make one replica
 * of a pool slower than the others.
 */
public final class ProfileOverrides {

    private ProfileOverrides() {
    }

    public static SimProfile apply(SimProfile base, String assignments) {
        SimProfile p = base;
        if (assignments == null || assignments.isBlank()) {
            return p;
        }
        for (String assignment : assignments.split(",")) {
            String[] kv = assignment.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("profile overrides want name=value pairs separated by commas, got '" + assignment + "'");
            }
            String name = kv[0].trim();
            double v;
            try {
                v = Double.parseDouble(kv[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("profile override " + name + ": '" + kv[1] + "' is not a number");
            }
            p = switch (name.toLowerCase(Locale.ROOT)) {
                case "maxnumseqs" -> p.withMaxNumSeqs((int) v);
                case "maxnumbatchedtokens" -> p.withMaxNumBatchedTokens((int) v);
                case "kvblocks" -> p.withKvBlocks((int) v);
                case "maxmodellen" -> p.withMaxModelLen((int) v);
                case "stepbasems" -> p.withCosts(v, p.prefillMsPerToken(), p.decodeMsPerSeq(), p.contextMsPerKiloToken(),
                        p.prefillAttentionMsPerKiloToken());
                case "prefillmspertoken" -> p.withCosts(p.stepBaseMs(), v, p.decodeMsPerSeq(), p.contextMsPerKiloToken(),
                        p.prefillAttentionMsPerKiloToken());
                case "decodemsperseq" -> p.withCosts(p.stepBaseMs(), p.prefillMsPerToken(), v, p.contextMsPerKiloToken(),
                        p.prefillAttentionMsPerKiloToken());
                case "contextmsperkilotoken" -> p.withCosts(p.stepBaseMs(), p.prefillMsPerToken(), p.decodeMsPerSeq(), v,
                        p.prefillAttentionMsPerKiloToken());
                case "prefillattentionmsperkilotoken" -> p.withCosts(p.stepBaseMs(), p.prefillMsPerToken(), p.decodeMsPerSeq(),
                        p.contextMsPerKiloToken(), v);
                case "kvbytespertoken" -> p.withKvBytesPerToken((long) v);
                case "kvoffloadgib" -> p.withKvOffloadGib(v);
                case "offloadgbps" -> p.withOffloadGBps(v);
                default -> throw new IllegalArgumentException("unknown profile constant '" + name + "'; known: "
                        + "maxNumSeqs, maxNumBatchedTokens, kvBlocks, maxModelLen, stepBaseMs, prefillMsPerToken, "
                        + "decodeMsPerSeq, contextMsPerKiloToken, prefillAttentionMsPerKiloToken, kvBytesPerToken, "
                        + "kvOffloadGib, offloadGBps");
            };
        }
        return p;
    }

    /**
     * Every constant of {@code p} as {@code name=value,...}, what {@link #apply} (and so {@code lmw-sim --set}) takes:
     * applied to the profile {@code p} was made from, with the same block size, it gives {@code p} back.
     */
    public static String assignments(SimProfile p) {
        return "maxNumSeqs=" + p.maxNumSeqs() + ",maxNumBatchedTokens=" + p.maxNumBatchedTokens() + ",kvBlocks=" + p.kvBlocks()
                + ",maxModelLen=" + p.maxModelLen() + ",stepBaseMs=" + p.stepBaseMs() + ",prefillMsPerToken=" + p.prefillMsPerToken()
                + ",decodeMsPerSeq=" + p.decodeMsPerSeq() + ",contextMsPerKiloToken=" + p.contextMsPerKiloToken()
                + ",prefillAttentionMsPerKiloToken=" + p.prefillAttentionMsPerKiloToken() + ",kvBytesPerToken=" + p.kvBytesPerToken()
                + ",kvOffloadGib=" + p.kvOffloadGib() + ",offloadGBps=" + p.offloadGBps();
    }

    /** The constants as one line, for the report; the attention and host-tier terms only when the profile has them. */
    public static String describe(SimProfile p) {
        String attention = p.prefillAttentionMsPerKiloToken() > 0
                ? String.format(Locale.ROOT, " + %.3g ms/prefill token per 1k attended", p.prefillAttentionMsPerKiloToken()) : "";
        String tier = p.hasHostTier()
                ? String.format(Locale.ROOT, ", host KV tier %.3g GiB (%d blocks) at %.3g GB/s", p.kvOffloadGib(),
                        p.hostTierBlocks(), p.offloadGBps())
                : "";
        return String.format(Locale.ROOT, "%s: maxNumSeqs %d, maxNumBatchedTokens %d, kvBlocks %d × %d tokens, maxModelLen %d, "
                        + "step = %.3g ms + %.3g ms/prefill token%s + %.3g ms/decoding seq + %.3g ms/1k context tokens%s",
                p.name(), p.maxNumSeqs(), p.maxNumBatchedTokens(), p.kvBlocks(), p.blockSize(), p.maxModelLen(),
                p.stepBaseMs(), p.prefillMsPerToken(), attention, p.decodeMsPerSeq(), p.contextMsPerKiloToken(), tier);
    }
}
