package io.lmwarden.router.placement.filter;

/** No replica can take the request; the message is for the client. */
public final class NoReplicaAvailableException extends Exception {

    private final int status;

    public NoReplicaAvailableException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** 503 when nothing is ready, 400 when the client pinned to a replica that does not exist. */
    public int status() {
        return status;
    }
}
