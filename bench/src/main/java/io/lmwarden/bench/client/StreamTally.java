package io.lmwarden.bench.client;

/** What both API flavours' stream readers accumulate, and its accessors; subclasses parse their own events. */
abstract class StreamTally implements StreamInterpreter {

    protected final StringBuilder reply = new StringBuilder(1024);
    protected int outputTokens = -1;
    protected int promptTokens = -1;
    protected int cachedTokens = -1;
    protected boolean completed;
    protected String error;
    protected boolean overloaded;

    @Override
    public String replyText() {
        return reply.toString();
    }

    @Override
    public int outputTokens() {
        return outputTokens;
    }

    @Override
    public int promptTokens() {
        return promptTokens;
    }

    @Override
    public int cachedTokens() {
        return cachedTokens;
    }

    @Override
    public boolean completed() {
        return completed;
    }

    @Override
    public String error() {
        return error;
    }

    @Override
    public boolean overloaded() {
        return overloaded;
    }
}
