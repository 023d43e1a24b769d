package io.lmwarden.router.kvevents;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One batch as vLLM's publisher frames it: an 8-byte big-endian sequence number and the msgpack payload. A live
 * message is [topic, seq, payload]; a replayed one is [empty delimiter, seq, payload] (the delimiter may already be
 * gone), and a replay ends with seq -1 and an empty payload. A replay is asked for with [empty delimiter, 8-byte
 * start].
 */
record KvEventFrame(long seq, byte[] payload) {

    private static final long END_OF_REPLAY = -1;

    /** The frame of a live message, or null when the message is not [topic, 8-byte seq, payload]. */
    static KvEventFrame live(List<byte[]> message) {
        if (message.size() != 3 || message.get(1).length != 8) {
            return null;
        }
        return new KvEventFrame(ByteBuffer.wrap(message.get(1)).getLong(), message.get(2));
    }

    /** The frame of a replayed message, or null when the message is not ([empty,] 8-byte seq, payload). */
    static KvEventFrame replayed(List<byte[]> message) {
        int at = message.size() == 3 && message.get(0).length == 0 ? 1 : 0;
        if (message.size() - at != 2 || message.get(at).length != 8) {
            return null;
        }
        return new KvEventFrame(ByteBuffer.wrap(message.get(at)).getLong(), message.get(at + 1));
    }

    /** The start of a replay request, after its empty delimiter. */
    static byte[] replayRequest(long from) {
        return ByteBuffer.allocate(8).putLong(from).array();
    }

    boolean endsReplay() {
        return seq == END_OF_REPLAY;
    }
}
