package io.lmwarden.bench.workload;

import java.util.ArrayList;
import java.util.List;

/** A session's growing history: user and assistant turns, as the agent re-sends it on every step. */
public final class Conversation {

    public record Turn(String role, String text) {
    }

    private final String system;
    private final List<Turn> turns = new ArrayList<>();

    public Conversation(String system) {
        this.system = system;
    }

    public String system() {
        return system;
    }

    public List<Turn> turns() {
        return turns;
    }

    public void addUser(String text) {
        turns.add(new Turn("user", text));
    }

    public void addAssistant(String text) {
        turns.add(new Turn("assistant", text));
    }

    /** Appends {@code text} to the last turn (a session that went on from a summary adds its next message to it). */
    public void appendToLastTurn(String text) {
        Turn last = turns.remove(turns.size() - 1);
        turns.add(new Turn(last.role(), last.text() + text));
    }

    /** Replaces the whole history by one user turn (compaction: the summary is all that is left). */
    public void reset(String firstUserText) {
        turns.clear();
        addUser(firstUserText);
    }

    /** Characters of all prompt text, the basis of the 4-chars-per-token estimate. */
    public long promptChars() {
        long chars = system.length();
        for (Turn t : turns) {
            chars += t.text().length();
        }
        return chars;
    }
}
