package io.lmwarden.router.session;

/** A conversation's identity as far as placement is concerned, and where it was found. */
public record SessionKey(String value, SessionKeySource source) {

    public SessionKey {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("session key must not be empty");
        }
    }
}
