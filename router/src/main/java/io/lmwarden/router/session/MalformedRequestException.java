package io.lmwarden.router.session;

/** The request body cannot be read; the message says what is wrong, for the client. */
public final class MalformedRequestException extends Exception {
    public MalformedRequestException(String message) {
        super(message);
    }
}
