package io.lmwarden.bench.workload;

import io.lmwarden.common.api.ApiDialect;

import java.util.Locale;

/**
 * One kind of session in a workload.
 *
 * @param name               label of the class in prompts and reports ("" for the flag shorthand, whose prompts
 *                           are those of the reference workload)
 * @param share              relative weight: the n-th new session goes to the class furthest behind its share
 * @param shape              token sizes, calls, max_tokens, pauses and compaction
 * @param systemScope        whose system prompt: {@code shared} by every class, {@code class} (one per class)
 * @param sharedFirstMessage every session of the class starts with the same first message (a template)
 * @param api                the API the class speaks
 * @param keying             how its sessions are keyed
 */
public record SessionClass(String name, double share, SessionShape shape, SystemScope systemScope,
                           boolean sharedFirstMessage, ApiDialect api, SessionKeying keying) {

    public enum SystemScope { SHARED, CLASS }

    public SessionClass {
        if (!(share > 0)) {
            throw new IllegalArgumentException("class '" + name + "': share must be > 0");
        }
        if (keying == SessionKeying.METADATA_USER_ID && api != ApiDialect.ANTHROPIC_MESSAGES) {
            throw new IllegalArgumentException("class '" + name + "': metadata.user_id keying needs api anthropic");
        }
    }

    /** The flag shorthand: one class, the flavour's usual keying. */
    public static SessionClass single(WorkloadSpec shape, ApiDialect api) {
        return new SessionClass("", 1, SessionShape.of(shape), SystemScope.SHARED, false, api, AgentApiNames.defaultKeying(api));
    }

    /** Prefix of this class's prompt labels: none for the shorthand, so its prompts stay the reference ones. */
    String labelPrefix() {
        return name.isEmpty() ? "" : name + "-";
    }

    public SessionClass withShape(SessionShape s) {
        return new SessionClass(name, share, s, systemScope, sharedFirstMessage, api, keying);
    }

    public SessionClass withIdentity(boolean sharedFirst, SessionKeying key) {
        return new SessionClass(name, share, shape, systemScope, sharedFirst, api, key);
    }

    /** One line for reports. */
    public String describe() {
        String who = name.isEmpty() ? "sessions" : name;
        String system = systemScope == SystemScope.SHARED ? "shared" : "per class";
        String apiAndKey = "api " + api.shortName() + ", key " + keying.name().toLowerCase(Locale.ROOT);
        if (!plain()) {
            return String.format(Locale.ROOT, "%s (share %s): %s; system prompt %s, first message %s; %s", who, share,
                    shape.describe(), system, sharedFirstMessage ? "shared template" : "unique", apiAndKey);
        }
        WorkloadSpec w = shape.nominal();
        Distribution.IntRange calls = (Distribution.IntRange) shape.calls();
        String steps = calls.min() == calls.max() ? String.valueOf(calls.min() - 1) : (calls.min() - 1) + "–" + (calls.max() - 1);
        return String.format(Locale.ROOT,
                "%s (share %s): system %d tokens (%s), first message %d tokens (%s), %s follow-up steps of %d tokens, "
                        + "max_tokens %d, think %.1f s ±%.0f%%, %s",
                who, share, w.systemTokens(), system, w.firstTokens(), sharedFirstMessage ? "shared template" : "unique", steps,
                w.stepTokens(), w.maxOutputTokens(), w.thinkTime().toMillis() / 1000.0, w.thinkJitter() * 100, apiAndKey);
    }

    /** The shape the workload files had before distributions: constant sizes, a step range, a uniform pause. */
    private boolean plain() {
        return shape.firstTokens().isConstant() && shape.stepTokens().isConstant() && shape.maxTokens().isConstant()
                && shape.calls() instanceof Distribution.IntRange && shape.pause() instanceof Distribution.Uniform
                && !shape.compaction().enabled();
    }

    /** Label of the system prompt text; classes with a shared one share its prefix (sizes may differ). */
    public String systemLabel() {
        return systemScope == SystemScope.SHARED ? "system" : "system-" + name;
    }

    /**
     * Label of the system prompt of the class's sessions on LoRA adapter {@code adapter} (null: the base model): an
     * adapter is a team's fine-tune, with a preamble of its own that its sessions share.
     */
    public String systemLabel(String adapter) {
        return adapter == null ? systemLabel() : systemLabel() + "@" + adapter;
    }
}
