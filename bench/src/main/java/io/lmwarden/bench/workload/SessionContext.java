package io.lmwarden.bench.workload;

/**
 * A session's conversation as it is re-sent on every call, kept inside the model's window the way its class compacts:
 * decides what each call adds and asks for, and what its reply does to the history. The live driver and the history
 * of a steady-start session go through the same steps, so a joined session carries what it would have carried.
 */
public final class SessionContext {

    /** Template tokens the engine adds per message, and once per prompt: more than the simulator's ChatML adds. */
    private static final int TOKENS_PER_TURN = 8;
    private static final int TOKENS_PER_PROMPT = 16;

    /**
     * One call.
     *
     * @param step       the script's step (1-based)
     * @param maxTokens  what the call asks for ({@code max_tokens})
     * @param compaction the call asks for the summary that the history is then replaced by
     * @param restart    the prompt shares nothing with the session's previous call but the system prompt (the first
     *                   call, or the first after a compaction)
     */
    public record Call(int step, int maxTokens, boolean compaction, boolean restart) {
    }

    private final SessionScript script;
    private final Conversation conversation;
    private final long limit;
    private final int systemTokens;
    /** User turns as filler of their lengths, not the script's words: what is sent does not matter, only its size. */
    private final boolean fillerText;
    private boolean restartNext = true;

    /** @param window the model's context window in tokens (0 when unknown: the class must not compact then) */
    public SessionContext(SessionScript script, String systemPrompt, int window) {
        this(script, systemPrompt, window, false);
    }

    /**
     * A context whose turns are {@link #filler} of the lengths the script's texts have ({@link PseudoText} gives exactly
     * 4 characters per token): every call, prompt size and compaction is the same, at a fraction of the cost of drawing
     * the words. For figures over many sessions ({@link WorkloadStats}); never for what is sent to an engine.
     */
    static SessionContext ofSizesOnly(SessionScript script, String systemPrompt, int window) {
        return new SessionContext(script, systemPrompt, window, true);
    }

    /** Text of {@code tokens × 4} characters, as long as the script's text of that many tokens. */
    static String filler(int tokens) {
        return "x".repeat(tokens * WorkloadSpec.CHARS_PER_TOKEN);
    }

    private SessionContext(SessionScript script, String systemPrompt, int window, boolean fillerText) {
        this.fillerText = fillerText;
        this.script = script;
        this.conversation = new Conversation(systemPrompt);
        Compaction compaction = script.sessionClass().shape().compaction();
        if (compaction.enabled() && window <= 0) {
            throw new IllegalArgumentException("class '" + script.sessionClass().name() + "' compacts at the model's window, but"
                    + " the target's /v1/models gives no max_model_len: pass --context-window N");
        }
        this.limit = compaction.limit(window);
        this.systemTokens = script.sessionClass().shape().systemTokens();
    }

    public Conversation conversation() {
        return conversation;
    }

    /** Estimated prompt tokens of the conversation as it stands (4 characters per token, plus template tokens). */
    public long promptTokens() {
        return conversation.promptChars() / WorkloadSpec.CHARS_PER_TOKEN + (long) TOKENS_PER_TURN * (conversation.turns().size() + 1)
                + TOKENS_PER_PROMPT;
    }

    /**
     * Adds step {@code step}'s user turn (or the compaction instruction) to the conversation; what the call is. A message
     * too large for what is left of the window (a first message, a huge tool result) is cut to what fits: a session
     * cannot send past its window.
     */
    public Call next(int step) {
        int maxTokens = script.maxTokens(step);
        boolean restart = restartNext;
        restartNext = false;
        Compaction compaction = script.sessionClass().shape().compaction();
        // Room kept free for a later compaction call: its instruction and its summary.
        long reserve = compaction.enabled() ? Compaction.INSTRUCTION_TOKENS + compaction.summaryTokens() + 2L * TOKENS_PER_TURN : 0;
        int userTokens = script.userTokens(step);
        if (conversation.turns().size() > 1
                && promptTokens() + TOKENS_PER_TURN + userTokens + maxTokens + reserve > limit) {
            conversation.addUser(PseudoText.of(0, "compact-instruction", Compaction.INSTRUCTION_TOKENS));
            return new Call(step, compaction.summaryTokens(), true, restart);
        }
        long room = limit - promptTokens() - TOKENS_PER_TURN - maxTokens - reserve;
        int tokens = (int) Math.max(1, Math.min(userTokens, room));
        String text = fillerText ? filler(tokens) : script.userText(step, tokens);
        if (lastTurnIsUser()) {
            conversation.appendToLastTurn(" " + text);
        } else {
            conversation.addUser(text);
        }
        return new Call(step, maxTokens, false, restart);
    }

    /** The reply to {@code call}: added to the history, or, for a compaction, the history's new start. */
    public void replied(Call call, String replyText) {
        if (call.compaction()) {
            conversation.reset(replyText);
            restartNext = true;
        } else {
            conversation.addAssistant(replyText);
        }
    }

    /**
     * Builds the history a steady-start session carries when it joins at {@link SessionScript#joinStep()}: every earlier
     * call as the live session would have made it, with filler replies of the lengths it asked for.
     */
    public void buildHistory() {
        for (int step = 1; step < script.joinStep(); step++) {
            Call call = next(step);
            replied(call, script.historyReply(step, call.maxTokens()));
        }
        restartNext = true;
    }

    private boolean lastTurnIsUser() {
        return !conversation.turns().isEmpty() && conversation.turns().get(conversation.turns().size() - 1).role().equals("user");
    }
}
