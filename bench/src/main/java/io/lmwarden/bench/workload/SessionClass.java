package io.lmwarden.bench.workload;

import io.lmwarden.bench.client.ApiFlavour;

/**
 * One kind of session in a workload.
 *
 * @param name               label of the class in prompts and reports ("" for the flag shorthand, whose prompts
 *                           are those of the reference workload)
 * @param share              relative weight: the n-th new session goes to the class furthest behind its share
 * @param shape              token sizes, steps, max_tokens and think time
 * @param systemScope        whose system prompt: {@code shared} by every class, {@code class} (one per class)
 * @param sharedFirstMessage every session of the class starts with the same first message (a template)
 * @param maxFollowUpSteps   follow-up steps are uniform in shape.followUpSteps..this, per session
 * @param api                the API the class speaks
 * @param keying             how its sessions are keyed
 */
public record SessionClass(String name, double share, WorkloadSpec shape, SystemScope systemScope,
                           boolean sharedFirstMessage, int maxFollowUpSteps, ApiFlavour api, SessionKeying keying) {

    public enum SystemScope { SHARED, CLASS }

    public SessionClass {
        if (!(share > 0)) {
            throw new IllegalArgumentException("class '" + name + "': share must be > 0");
        }
        if (maxFollowUpSteps < shape.followUpSteps()) {
            throw new IllegalArgumentException("class '" + name + "': steps max " + maxFollowUpSteps + " < min " + shape.followUpSteps());
        }
        if (keying == SessionKeying.METADATA_USER_ID && api != ApiFlavour.ANTHROPIC) {
            throw new IllegalArgumentException("class '" + name + "': metadata.user_id keying needs api anthropic");
        }
    }

    /** The flag shorthand: one class, the flavour's usual keying. */
    public static SessionClass single(WorkloadSpec shape, ApiFlavour api) {
        return new SessionClass("", 1, shape, SystemScope.SHARED, false, shape.followUpSteps(), api, api.defaultKeying());
    }

    /** Prefix of this class's prompt labels: none for the shorthand, so its prompts stay the reference ones. */
    String labelPrefix() {
        return name.isEmpty() ? "" : name + "-";
    }

    /** One line for reports. */
    public String describe() {
        WorkloadSpec w = shape;
        String steps = maxFollowUpSteps == w.followUpSteps() ? String.valueOf(w.followUpSteps())
                : w.followUpSteps() + "–" + maxFollowUpSteps;
        return String.format(java.util.Locale.ROOT,
                "%s (share %s): system %d tokens (%s), first message %d tokens (%s), %s follow-up steps of %d tokens, "
                        + "max_tokens %d, think %.1f s ±%.0f%%, api %s, key %s",
                name.isEmpty() ? "sessions" : name, share, w.systemTokens(), systemScope == SystemScope.SHARED ? "shared" : "per class",
                w.firstTokens(), sharedFirstMessage ? "shared template" : "unique", steps, w.stepTokens(), w.maxOutputTokens(),
                w.thinkTime().toMillis() / 1000.0, w.thinkJitter() * 100, api.name().toLowerCase(java.util.Locale.ROOT),
                keying.name().toLowerCase(java.util.Locale.ROOT));
    }

    /** Label of the system prompt text; classes with a shared one share its prefix (sizes may differ). */
    public String systemLabel() {
        return systemScope == SystemScope.SHARED ? "system" : "system-" + name;
    }
}
