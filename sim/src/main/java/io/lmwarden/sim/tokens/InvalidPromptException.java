package io.lmwarden.sim.tokens;

/** A request body that cannot be rendered into a prompt; {@code param} names the offending field. */
public final class InvalidPromptException extends RuntimeException {
    private final String param;

    public InvalidPromptException(String message, String param) {
        super(message, null, false, false);
        this.param = param;
    }

    public String param() {
        return param;
    }
}
