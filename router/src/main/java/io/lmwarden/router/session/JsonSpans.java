package io.lmwarden.router.session;

import java.util.Arrays;

/**
 * Byte ranges of one top-level field's values in a request body, and where the object opens, so the
 * router can edit that field without re-serialising the body.
 */
public final class JsonSpans {

    private int[] starts = new int[0];
    private int[] ends = new int[0];
    private int openBrace;
    private boolean emptyObject = true;

    void add(int start, int end) {
        starts = Arrays.copyOf(starts, starts.length + 1);
        ends = Arrays.copyOf(ends, ends.length + 1);
        starts[starts.length - 1] = start;
        ends[ends.length - 1] = end;
    }

    void object(int openBrace, boolean empty) {
        this.openBrace = openBrace;
        this.emptyObject = empty;
    }

    public int count() {
        return starts.length;
    }

    public int start(int i) {
        return starts[i];
    }

    public int end(int i) {
        return ends[i];
    }

    public int openBrace() {
        return openBrace;
    }

    public boolean emptyObject() {
        return emptyObject;
    }
}
